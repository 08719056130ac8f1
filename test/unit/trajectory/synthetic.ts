// Builds synthetic event sequences the way the engine emits them, for reducer, analytics and
// codec tests: nested children interleaved, batched fan-out, default answers, multi-turn.
import {
  EVENT_SCHEMA_VERSION,
  asCallId,
  asRunId,
  type EventDraft,
  type Limits,
  type RunId,
  type TrajectoryEvent,
  type Usage,
} from '../../../src-shared/events.ts';

const LIMITS: Limits = {
  maxDepth: 2,
  maxIterations: 3,
  maxBudgetUsd: null,
  maxTimeoutMs: null,
  maxTokens: null,
  maxErrors: null,
  maxConcurrencyLlm: 4,
  maxConcurrencyRlm: 4,
};
const usage = (i: number, o: number, c: number | null = 0.001): Usage => ({ inputTokens: i, outputTokens: o, costUsd: c });

export class Script {
  events: TrajectoryEvent[] = [];
  t = 0;
  emit(d: EventDraft, advance = 1): TrajectoryEvent {
    this.t += advance;
    const e = {
      ...d,
      v: EVENT_SCHEMA_VERSION,
      seq: this.events.length,
      t: this.t,
      ts: new Date(Date.UTC(2026, 0, 1) + this.t).toISOString(),
    };
    this.events.push(e);
    return e;
  }
}

export interface RunCtx {
  runId: RunId;
  parentRunId: RunId | null;
  depth: number;
}

function env(r: RunCtx): RunCtx {
  return { runId: r.runId, parentRunId: r.parentRunId, depth: r.depth };
}

export function runStart(
  s: Script,
  r: RunCtx,
  turn = 0,
  spawnedBy: { runId: RunId; iteration: number; block: number; callId: string } | null = null,
  messages = [
    { role: 'system' as const, content: 'sys' },
    { role: 'user' as const, content: 'Answer the following: q\n\nYour context is a str of 10 total characters.' },
  ],
): void {
  s.emit({
    type: 'run.start',
    ...env(r),
    spawnedBy: spawnedBy ? { ...spawnedBy, callId: asCallId(spawnedBy.callId) } : null,
    turn,
    model: 'm',
    subModel: null,
    query: 'q',
    context: { type: 'string', totalChars: 10, chunkLengths: [10] },
    limits: LIMITS,
    messages,
    tools: [],
  });
}

export function iterStart(s: Script, r: RunCtx, iteration: number): void {
  s.emit({
    type: 'iteration.start',
    ...env(r),
    iteration,
    appended: [{ role: 'user', content: `Turn ${iteration}` }],
    historyLength: 2 + iteration * 3 - 2,
    historyTokens: 10,
  });
}

export function reply(
  s: Script,
  r: RunCtx,
  iteration: number,
  text: string,
  u = usage(100, 10),
  latencyMs = 50,
  purpose: 'turn' | 'final_answer' = 'turn',
): void {
  s.emit({ type: 'model.reply', ...env(r), iteration, purpose, model: 'm', text, usage: u, latencyMs }, latencyMs);
}

export function blockStart(s: Script, r: RunCtx, iteration: number, block: number, code: string): void {
  s.emit({ type: 'block.start', ...env(r), iteration, block, code });
}

export function blockEnd(
  s: Script,
  r: RunCtx,
  iteration: number,
  block: number,
  opts: {
    stdout?: string;
    stderr?: string;
    error?: { name: string; message: string } | null;
    durationMs?: number;
    submitted?: string | null;
  } = {},
): void {
  s.emit(
    {
      type: 'block.end',
      ...env(r),
      iteration,
      block,
      stdout: opts.stdout ?? 'out\n',
      stderr: opts.stderr ?? '',
      error: opts.error ?? null,
      durationMs: opts.durationMs ?? 10,
      cpuMs: 1,
      submitted: opts.submitted ?? null,
      variables: ['x'],
      replReset: null,
    },
    opts.durationMs ?? 10,
  );
}

export function iterEnd(s: Script, r: RunCtx, iteration: number, text: string, finalAnswer: string | null = null, durationMs = 80): void {
  s.emit({
    type: 'iteration.end',
    ...env(r),
    iteration,
    appended:
      finalAnswer === null
        ? [
            { role: 'assistant', content: text },
            { role: 'user', content: `REPL output ${iteration}` },
          ]
        : [],
    finalAnswer,
    durationMs,
  });
}

function callStart(
  s: Script,
  r: RunCtx,
  callId: string,
  iteration: number,
  block: number,
  kind: 'llm' | 'rlm',
  opts: { childRunId?: RunId | null; leaf?: boolean; batch?: { batchId: string; index: number; size: number } | null; model?: string } = {},
): void {
  s.emit({
    type: 'subcall.start',
    ...env(r),
    callId: asCallId(callId),
    iteration,
    block,
    kind,
    leaf: opts.leaf ?? false,
    prompt: `prompt of ${callId}`,
    model: opts.model ?? 'm',
    batch: opts.batch ?? null,
    childRunId: opts.childRunId ?? null,
  });
}

function callEnd(s: Script, r: RunCtx, callId: string, u: Usage = usage(20, 2), latencyMs = 30, advance = 30): void {
  s.emit(
    { type: 'subcall.end', ...env(r), callId: asCallId(callId), response: `answer of ${callId}`, error: null, usage: u, latencyMs },
    advance,
  );
}

export function runEnd(
  s: Script,
  r: RunCtx,
  answer: string | null,
  iterations: number,
  durationMs: number,
  stopReason: 'answered' | 'max_iterations' = 'answered',
): void {
  s.emit({
    type: 'run.end',
    ...env(r),
    answer,
    stopReason,
    message: null,
    iterations,
    durationMs,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0 },
  });
}

/** A simple child run: one iteration, one block that answers. */
function childSteps(s: Script, c: RunCtx, answer: string): (() => void)[] {
  return [
    () => iterStart(s, c, 1),
    () => reply(s, c, 1, 'child reply', usage(50, 5)),
    () => blockStart(s, c, 1, 0, 'answer.ready = true'),
    () => blockEnd(s, c, 1, 0, { submitted: answer }),
    () => iterEnd(s, c, 1, 'child reply', answer),
    () => runEnd(s, c, answer, 1, 40),
  ];
}

/**
 * The full scenario: turn 0 with (iteration 1) an error block and a batched llm fan-out of 3,
 * (iteration 2) two concurrent child runs whose events interleave, one of which makes a leaf
 * call, and (iteration 3) the answer; turn 1 hits the iteration limit and gets a default answer.
 */
export function scenario(): Script {
  const s = new Script();
  const root: RunCtx = { runId: asRunId('root0'), parentRunId: null, depth: 0 };
  runStart(s, root, 0);
  // iteration 1: error block, then a batched fan-out of three plain calls
  iterStart(s, root, 1);
  reply(s, root, 1, 'it1');
  blockStart(s, root, 1, 0, 'boom()');
  blockEnd(s, root, 1, 0, {
    stderr: 'ReferenceError: boom is not defined',
    error: { name: 'ReferenceError', message: 'boom is not defined' },
  });
  blockStart(s, root, 1, 1, 'llm_query_batched([...])');
  for (let i = 0; i < 3; i++) callStart(s, root, `b${i}`, 1, 1, 'llm', { batch: { batchId: 'B', index: i, size: 3 }, model: 'm-sub' });
  callEnd(s, root, 'b1', usage(20, 2), 30, 5);
  callEnd(s, root, 'b0', usage(20, 2), 35, 5);
  callEnd(s, root, 'b2', usage(20, 2), 45, 10);
  blockEnd(s, root, 1, 1, { durationMs: 50 });
  iterEnd(s, root, 1, 'it1');
  // iteration 2: two concurrent children, interleaved
  iterStart(s, root, 2);
  reply(s, root, 2, 'it2');
  blockStart(s, root, 2, 0, 'rlm_query_batched([...])');
  const c1: RunCtx = { runId: asRunId('root0/c1'), parentRunId: root.runId, depth: 1 };
  const c2: RunCtx = { runId: asRunId('root0/c2'), parentRunId: root.runId, depth: 1 };
  callStart(s, root, 'k1', 2, 0, 'rlm', { childRunId: c1.runId, batch: { batchId: 'K', index: 0, size: 2 } });
  callStart(s, root, 'k2', 2, 0, 'rlm', { childRunId: c2.runId, batch: { batchId: 'K', index: 1, size: 2 } });
  runStart(s, c1, 0, { runId: root.runId, iteration: 2, block: 0, callId: 'k1' });
  runStart(s, c2, 0, { runId: root.runId, iteration: 2, block: 0, callId: 'k2' });
  const a = childSteps(s, c1, 'A');
  const b = childSteps(s, c2, 'B');
  // c2 also makes a leaf call inside its block
  const bLeaf = [
    ...b.slice(0, 3),
    () => callStart(s, c2, 'leaf1', 1, 0, 'rlm', { leaf: true, model: 'm-sub' }),
    () => callEnd(s, c2, 'leaf1', usage(7, 1)),
    ...b.slice(3),
  ];
  for (let i = 0; i < Math.max(a.length, bLeaf.length); i++) {
    a[i]?.();
    bLeaf[i]?.();
  }
  callEnd(s, root, 'k1', usage(0, 0, 0));
  callEnd(s, root, 'k2', usage(0, 0, 0));
  blockEnd(s, root, 2, 0, { durationMs: 200 });
  iterEnd(s, root, 2, 'it2');
  // iteration 3: answer
  iterStart(s, root, 3);
  reply(s, root, 3, 'it3');
  blockStart(s, root, 3, 0, 'answer.ready = true');
  blockEnd(s, root, 3, 0, { submitted: 'done' });
  iterEnd(s, root, 3, 'it3', 'done');
  runEnd(s, root, 'done', 3, 600);
  // turn 1: no answer within 3 iterations, then the default answer
  const root1: RunCtx = { runId: asRunId('root1'), parentRunId: null, depth: 0 };
  runStart(s, root1, 1);
  for (let i = 1; i <= 3; i++) {
    iterStart(s, root1, i);
    reply(s, root1, i, `t1 it${i}`);
    iterEnd(s, root1, i, `t1 it${i}`);
  }
  s.emit({ type: 'limit', ...env(root1), limit: 'max_iterations', message: 'limit' });
  reply(s, root1, 4, 'default answer', usage(100, 10), 40, 'final_answer');
  runEnd(s, root1, 'default answer', 3, 300, 'max_iterations');
  return s;
}
