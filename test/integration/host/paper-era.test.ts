// The paper-era protocol switched on from the app's side: a profile's setting reaches its
// sessions unless the run says otherwise, and a fork keeps its source's setting unless it
// sets its own. The host runs the sessions in its workers against a scripted mock-llm whose
// model writes FINAL(...) inside a repl block.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunEndEvent, RunStartEvent } from '../../../src-shared/events.ts';
import { scriptPolicy } from '../../../src-main/mock-llm/policies/script.ts';
import { hostForTests, mockLlmForTests, mockProfile } from './helpers.ts';

const server = mockLlmForTests({
  policy: scriptPolicy({
    rules: [
      { match: { kind: 'rlm' }, reply: 'Computing.\n```repl\nvar n = 40 + 2;\nFINAL("n=" + n)\n```' },
      { match: { kind: 'final' }, reply: 'no paper-era answer' },
    ],
  }),
  latencyMs: 0,
});
const { c } = hostForTests();

beforeAll(async () => {
  await c.call('profiles.save', { profile: mockProfile('paper', server.url, { finalPatterns: true }) });
  await c.call('profiles.save', { profile: mockProfile('plain', server.url) });
});

async function finished(sessionId: string): Promise<{ start: RunStartEvent; end: RunEndEvent }> {
  const { events } = await c.ended(sessionId);
  const start = events.find((e): e is RunStartEvent => e.type === 'run.start' && e.parentRunId === null)!;
  const end = events.find((e): e is RunEndEvent => e.type === 'run.end' && e.parentRunId === null)!;
  return { start, end };
}

const start = (profile: string, extra: Record<string, unknown> = {}) =>
  c.call('session.start', {
    params: {
      profile,
      context: { kind: 'text', text: 'ctx' },
      query: 'q',
      limits: { maxIterations: 1 },
      breakpoints: [],
      startPaused: false,
      ...extra,
    },
  });

describe('paper-era protocol from the app', () => {
  it("a profile's setting reaches its sessions: the prompt teaches FINAL and FINAL in code answers", async () => {
    const { session } = await start('paper');
    const { start: runStart, end } = await finished(session.sessionId);
    expect(runStart.messages[0]!.content).toContain('FINAL(your answer)');
    expect(end).toMatchObject({ stopReason: 'answered', answer: 'n=42' });
  });

  it('the new run can turn it off for a profile that has it, and on for one that has not', async () => {
    const off = await finished((await start('paper', { finalPatterns: false })).session.sessionId);
    expect(off.start.messages[0]!.content).not.toContain('FINAL(');
    expect(off.end).toMatchObject({ stopReason: 'max_iterations', answer: 'no paper-era answer' });
    const plain = await finished((await start('plain')).session.sessionId);
    expect(plain.end.answer).toBe('no paper-era answer');
    const on = await finished((await start('plain', { finalPatterns: true })).session.sessionId);
    expect(on.end.answer).toBe('n=42');
  });

  it("a fork keeps its source's setting unless it sets its own", async () => {
    const { session: src } = await start('plain', { finalPatterns: true });
    await finished(src.sessionId);
    const fork = (extra: Record<string, unknown>) =>
      c.call('session.fork', { params: { sessionId: src.sessionId, runId: 'run-0', iteration: 1, breakpoints: [], ...extra } });
    const kept = await finished((await fork({})).session.sessionId);
    expect(kept.end.answer).toBe('n=42');
    const turnedOff = await finished((await fork({ finalPatterns: false })).session.sessionId);
    expect(turnedOff.end.answer).toBe('no paper-era answer');
    expect(turnedOff.start.messages[0]!.content).not.toContain('FINAL(');
  });
});
