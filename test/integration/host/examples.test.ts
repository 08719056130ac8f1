// Worked examples from the app's side: a profile's example logs reach its sessions unless
// the run says otherwise; the host reads and renders them (paths on the host), the model
// receives them in the root's system message, and run.start records them.
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunStartEvent } from '../../../src-shared/events.ts';
import { hostForTests, mockLlmForTests, mockProfile } from './helpers.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

const REFERENCE = join(REFERENCE_FIXTURES, 'a_needle.jsonl');
const NATIVE = resolve(import.meta.dirname, '../rerun/fixtures/js-recover.rlm.jsonl');

const server = mockLlmForTests({ recordRequests: true, recordTexts: true, latencyMs: 0 });
const { c } = hostForTests();

beforeAll(async () => {
  await c.call('profiles.save', { profile: mockProfile('taught', server.url, { examples: [REFERENCE], exampleBudget: 5000 }) });
  await c.call('profiles.save', { profile: mockProfile('plain', server.url) });
});

async function rootStart(sessionId: string): Promise<RunStartEvent> {
  const { end, events } = await c.ended(sessionId);
  expect(end.status, end.message ?? '').toBe('finished');
  return events.find((e): e is RunStartEvent => e.type === 'run.start' && e.parentRunId === null)!;
}

const start = (profile: string, extra: Record<string, unknown> = {}) =>
  c.call('session.start', {
    params: {
      profile,
      context: { kind: 'text', text: 'The magic number is 31337.' },
      query: 'What is the magic number?',
      limits: { maxIterations: 3 },
      breakpoints: [],
      startPaused: false,
      ...extra,
    },
  });

/** The system messages mock-llm received since `from`. */
const systemsSince = (from: number): string[] =>
  server
    .requests()
    .slice(from)
    .flatMap((r) => r.messages.filter((m) => m.role === 'system').map((m) => m.content ?? ''));

describe('worked examples from the app', () => {
  it("a profile's examples reach its sessions: rendered on the host, sent to the model, recorded", async () => {
    const from = server.requests().length;
    const s = await rootStart((await start('taught')).session.sessionId);
    expect(s.examples).toEqual([{ source: REFERENCE, chars: expect.any(Number), repl: 'python' }]);
    expect(s.examples![0]!.chars).toBeLessThanOrEqual(5000);
    expect(s.messages[0]!.content).toContain('\nWorked examples\n');
    expect(s.messages[0]!.content).toContain('Example from a_needle.jsonl (a Python REPL');
    const sent = systemsSince(from);
    expect(sent.length).toBeGreaterThan(0);
    for (const text of sent) expect(text).toBe(s.messages[0]!.content);
  });

  it('the run can replace them, or drop them with []', async () => {
    const own = await rootStart((await start('plain', { examples: [NATIVE, REFERENCE], exampleBudget: 9000 })).session.sessionId);
    expect(own.examples!.map((e) => e.source)).toEqual([NATIVE, REFERENCE]);
    for (const e of own.examples!) expect(e.chars).toBeLessThanOrEqual(4500);
    const none = await rootStart((await start('taught', { examples: [] })).session.sessionId);
    expect(none.examples).toBeUndefined();
    expect(none.messages[0]!.content).not.toContain('Worked examples');
  });

  it('a bad example is refused by name before a session starts', async () => {
    const before = (await c.call('sessions.list', {})).sessions.length;
    await expect(start('plain', { examples: [join('/nonexistent', 'x.jsonl')] })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/cannot read example log \/nonexistent\/x\.jsonl/),
    });
    await expect(start('plain', { examples: [REFERENCE], exampleBudget: 40 })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/budget of 40 characters is too small for .*a_needle\.jsonl/),
    });
    await expect(start('plain', { examples: [REFERENCE], limits: { maxDepth: 0 } })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/need a REPL/),
    });
    expect((await c.call('sessions.list', {})).sessions.length).toBe(before);
  });
});
