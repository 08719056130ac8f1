// Re-execution of multi-turn sessions: every turn's blocks run again in one REPL, as recorded,
// with each turn's context (`context_N`) and the histories earlier turns left (`history_N`),
// rebuilt from the log; contexts given one for all turns or one per turn, and checked turn by turn.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { readContextFile } from '../../../src-main/engine/context-file.ts';
import { NativeLogFile } from '../../../src-main/logs/native-file-sink.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { rerunLog } from '../../../src-main/rerun/rerun-log.ts';
import { coolPython } from '../../../src-main/sandbox/python/pool.ts';
import type { SandboxValue } from '../../../src-main/sandbox/types.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { harness, repl } from '../engine/harness.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-rerun-turns-'));
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await coolPython();
});

function writeNativeLog(name: string, events: TrajectoryEvent[]): string {
  const path = join(tmp, name);
  const log = new NativeLogFile(path, makeHeader(asSessionId(name), new Date(), undefined, 'javascript'));
  for (const e of events) log.append(e);
  log.close();
  return path;
}

const rerun = (logPath: string, contexts: SandboxValue[]) =>
  rerunLog({ logPath, contexts, contextLabels: contexts.map((_, i) => `context #${i + 1}`), logDir: null });

describe('rerun of a native multi-turn session', () => {
  // Turn 2 reads what only a persistent REPL has: a variable of turn 1, its history, both contexts.
  const policy: Policy = (req) => {
    const c = classify(req);
    const asked = (q: string): boolean => req.messages.some((m) => m.role === 'user' && String(m.content).includes(q));
    if (c.kind !== 'rlm') return 'sub-call answer';
    if (asked('FIRST QUESTION'))
      return repl('const kept = context_0.toUpperCase(); print(kept, llm_query("hi")); answer.content = kept; answer.ready = true;');
    return repl(
      [
        'print(kept, context, context_0, context_1);',
        'print(history_0.length, history_0.map((m) => m.role).join(","));',
        'print(JSON.stringify(history_0.at(-1)).length, history_0.at(-1).content.slice(0, 40));',
        'answer.content = String(history_0.length); answer.ready = true;',
      ].join('\n'),
    );
  };

  it('re-executes every turn in one REPL to the recorded output, with its contexts and histories', async () => {
    const h = await harness(policy, {}, { persistent: true });
    expect((await h.complete('alpha', 'FIRST QUESTION')).answer).toBe('ALPHA');
    const second = await h.complete('beta-gamma', 'SECOND QUESTION');
    expect(second.stopReason).toBe('answered');
    h.session.close();
    const log = writeNativeLog('two-turns.rlm.jsonl', h.events);

    const report = await rerun(log, ['alpha', 'beta-gamma']);
    expect(report.different).toEqual([]);
    expect(report).toMatchObject({ format: 'native', blocks: 2, same: 2 });

    // One context for every turn: turn 2's recorded context is another size, and that is named.
    await expect(rerun(log, ['alpha'])).rejects.toThrow(/context #1 is not the context turn 2 of .* was made from/);
    await expect(rerun(log, ['alpha', 'beta-gamma', 'delta'])).rejects.toThrow(
      /the log holds 2 turns of a multi-turn session; give one context for all of them or one per turn, not 3/,
    );
  });

  it('a changed history shows: turn 2 prints what the history holds', async () => {
    const h = await harness(policy, {}, { persistent: true });
    await h.complete('alpha', 'FIRST QUESTION');
    await h.complete('beta-gamma', 'SECOND QUESTION');
    h.session.close();
    // Turn 1 recorded as if its last iteration had appended one message more.
    const firstTurn = h.events[0]!.runId;
    const events = h.events.map((e) =>
      e.type === 'iteration.end' && e.runId === firstTurn
        ? { ...e, appended: [...e.appended, { role: 'user' as const, content: 'an extra message' }] }
        : e,
    );
    const report = await rerun(writeNativeLog('changed-history.rlm.jsonl', events), ['alpha', 'beta-gamma']);
    expect(report.same).toBe(1);
    expect(report.different.map((d) => [d.run, d.iteration])).toEqual([[h.events.at(-1)!.runId, 1]]);
  });
});

describe('rerun of a reference-library multi-turn session', () => {
  it('re-executes both turns of a persistent session (iteration numbers restart) in one Python REPL', async () => {
    const lines = readFileSync(join(REFERENCE_FIXTURES, 'a_needle.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const [meta, ...iterations] = lines;
    const log = join(tmp, 'two-needles.jsonl');
    writeFileSync(log, [meta, ...iterations, ...iterations].join('\n') + '\n');
    const index = JSON.parse(readFileSync(join(REFERENCE_FIXTURES, 'contexts/index.json'), 'utf8')) as { log: string; context: string }[];
    const context = await readContextFile(join(REFERENCE_FIXTURES, 'contexts', index.find((e) => e.log === 'a_needle.jsonl')!.context));
    const once = await rerun(log, [context]);
    expect(once.different).toEqual([]);
    expect(once).toMatchObject({ format: 'rlm-python', language: 'python', blocks: 8, same: 8 });
    const perTurn = await rerun(log, [context, context]);
    expect(perTurn).toMatchObject({ blocks: 8, same: 8 });
  }, 120_000);
});
