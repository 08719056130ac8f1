// The pure part of counterfactual sub-calls: finding a call, the settings a child run's
// re-run starts with, the substitution a fork carries, reading the sidecar; and the log
// contract: a fork's `subcall.end.counterfactual` and header `forkOf.counterfactual` read back.
import { describe, expect, it } from 'vitest';
import {
  childSessionSettings,
  type CounterfactualRecord,
  findCounterfactualCall,
  foldCounterfactualLines,
  substitutionOf,
} from '../../../src-shared/analysis/counterfactual.ts';
import { checkEvent, encodeNative, readNativeText } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asRunId, asSessionId, type SubcallEndEvent } from '../../../src-shared/events.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { scenario } from '../trajectory/synthetic.ts';

const record = (over: Partial<CounterfactualRecord> = {}): CounterfactualRecord => ({
  version: 1,
  id: 'cf-1',
  createdAt: '2026-12-03T00:00:00.000Z',
  source: { sessionId: 's', logFile: '/x.rlm.jsonl', format: 'native' },
  call: {
    callId: 'b0',
    runId: 'root0',
    iteration: 1,
    block: 1,
    kind: 'llm',
    child: false,
    prompt: 'p',
    model: 'm',
    response: 'old',
    error: null,
  },
  edited: { prompt: 'p2', model: 'm2', profile: 'demo' },
  status: 'done',
  result: { response: 'new', error: null, usage: { inputTokens: 3, outputTokens: 1, costUsd: null }, latencyMs: 5 },
  session: null,
  message: null,
  ...over,
});

describe('counterfactual analysis', () => {
  const state = reduceEvents(scenario().events);

  it('finds a plain call and a child-run call, and says why an unknown one cannot be re-run', () => {
    const plain = findCounterfactualCall(state, 'b0');
    expect(plain).toMatchObject({ child: false, childRun: null, run: { id: 'root0' }, call: { iteration: 1, block: 1 } });
    const child = findCounterfactualCall(state, 'k2');
    expect(child).toMatchObject({ child: true, childRun: { id: 'root0/c2', depth: 1 } });
    expect(findCounterfactualCall(state, 'nope')).toMatch(/no sub-call nope/);
  });

  it('re-runs a child at its own depth: the depth left below it, its model and iterations', () => {
    const child = findCounterfactualCall(state, 'k1');
    if (typeof child === 'string') throw new Error(child);
    // maxDepth 2 with the child at depth 1: as a root of its own, maxDepth 1 (no further children).
    expect(childSessionSettings(child)).toEqual({ model: 'm', limits: { maxDepth: 1, maxIterations: 3 }, repl: undefined });
  });

  it('makes the substitution of a finished re-run only', () => {
    expect(substitutionOf(record())).toEqual({
      callId: 'b0',
      response: 'new',
      error: null,
      counterfactual: {
        id: 'cf-1',
        recorded: { callId: 'b0', prompt: 'p', model: 'm', response: 'old', error: null },
        rerun: { prompt: 'p2', model: 'm2', usage: { inputTokens: 3, outputTokens: 1, costUsd: null }, sessionLogFile: null },
      },
    });
    expect(substitutionOf(record({ status: 'running', result: null }))).toBeNull();
    expect(substitutionOf(record({ status: 'failed' }))).toBeNull();
  });

  it('reads a sidecar: the last line of an id wins, damaged lines are counted', () => {
    const running = record({ status: 'running', result: null, call: { ...record().call, child: true } });
    const lines = [
      JSON.stringify(running),
      '{"torn',
      JSON.stringify(record({ id: 'cf-2' })),
      JSON.stringify({ ...running, status: 'done', result: record().result }),
      '',
    ];
    const { records, bad } = foldCounterfactualLines(lines);
    expect(bad).toBe(1);
    expect(records.map((r) => [r.id, r.status])).toEqual([
      ['cf-2', 'done'],
      ['cf-1', 'done'],
    ]);
  });

  it('the log contract: a substituted call and a counterfactual fork header read back as written', () => {
    const s = scenario();
    const end = s.events.find((e): e is SubcallEndEvent => e.type === 'subcall.end' && e.callId === 'b0')!;
    const sub = substitutionOf(record())!;
    const marked: SubcallEndEvent = { ...end, response: sub.response, counterfactual: sub.counterfactual };
    const events = s.events.map((e) => (e === end ? marked : e));
    expect(checkEvent(JSON.parse(JSON.stringify(marked)))).toMatchObject({ ok: true });
    const header = makeHeader(asSessionId('fork'), new Date(0), {
      logFile: '/x.rlm.jsonl',
      sessionId: asSessionId('s'),
      runId: asRunId('root0'),
      iteration: 1,
      counterfactual: { callId: 'b0', id: 'cf-1' },
    });
    const read = readNativeText([...encodeNative(header, events)].join(''));
    expect(read.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(read.header?.forkOf?.counterfactual).toEqual({ callId: 'b0', id: 'cf-1' });
    expect(read.events.find((e) => e.type === 'subcall.end' && e.callId === 'b0')).toEqual(marked);
    // A damaged record is named, not passed over.
    const bad = checkEvent({ ...JSON.parse(JSON.stringify(marked)), counterfactual: { id: 1 } });
    expect(bad).toMatchObject({ ok: false });
  });
});
