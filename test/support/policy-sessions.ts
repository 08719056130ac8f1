// Generated sessions of known shape for policy-metric tests and the bench: each session's
// root runs one iteration per entry of `calls`, whose single block makes that many plain
// calls (one `llm_query_batched` when more than one), then answers; `children` child runs
// are spawned from the first iteration's block. Written as native logs, alone or as an
// evaluation folder (results.jsonl + logs/) with each task's correctness.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeNative } from '../../src-shared/codecs/native.ts';
import { EVENT_SCHEMA_VERSION, asCallId, asRunId, asSessionId, type SpawnPlace, type TrajectoryEvent } from '../../src-shared/events.ts';
import { Script } from '../unit/trajectory/synthetic.ts';

export interface SessionShape {
  query: string;
  /** Plain calls made by the block of each iteration (its length is the iteration count). */
  calls: number[];
  /** Child runs spawned by the first iteration's block (each one iteration, no calls). */
  children?: number;
  /** Usage of each root turn, each plain call and each child turn. */
  tokens?: { turn: number; call: number; child: number };
  /** Characters of filler in every reply, prompt, response and output (logs of realistic size for the bench). */
  pad?: number;
  /** The endpoint reports no price: every call's cost is null. */
  unpriced?: boolean;
}

const LIMITS = {
  maxDepth: 2,
  maxIterations: 30,
  maxBudgetUsd: null,
  maxTimeoutMs: null,
  maxTokens: null,
  maxErrors: null,
  maxConcurrencyLlm: 16,
  maxConcurrencyRlm: 4,
};

export function policySession(shape: SessionShape, id = 's'): TrajectoryEvent[] {
  const s = new Script();
  const tok = shape.tokens ?? { turn: 100, call: 20, child: 50 };
  const fill = 'x'.repeat(shape.pad ?? 0);
  const env = (runId: string, parentRunId: string | null, depth: number) => ({
    runId: asRunId(runId),
    parentRunId: parentRunId === null ? null : asRunId(parentRunId),
    depth,
  });
  const root = env(`${id}-root`, null, 0);
  const start = (e: ReturnType<typeof env>, query: string, spawnedBy: SpawnPlace | null = null) =>
    s.emit({
      type: 'run.start',
      ...e,
      spawnedBy,
      turn: 0,
      model: 'm',
      subModel: 'm-sub',
      query,
      context: { type: 'string', totalChars: 1000, chunkLengths: [1000] },
      limits: LIMITS,
      messages: [{ role: 'system', content: 'sys' }],
      tools: [],
    });
  const turn = (e: ReturnType<typeof env>, iteration: number, usage: number) => {
    s.emit({ type: 'iteration.start', ...e, iteration, appended: [], historyLength: 1, historyTokens: 1 });
    s.emit({
      type: 'model.reply',
      ...e,
      iteration,
      purpose: 'turn',
      model: 'm',
      text: `reply${fill}`,
      usage: { inputTokens: usage, outputTokens: 1, costUsd: shape.unpriced ? null : 0.001 },
      latencyMs: 10,
    });
  };
  const block = (e: ReturnType<typeof env>, iteration: number, body: () => void, submitted: string | null) => {
    s.emit({ type: 'block.start', ...e, iteration, block: 0, code: 'x' });
    body();
    s.emit({
      type: 'block.end',
      ...e,
      iteration,
      block: 0,
      stdout: fill,
      stderr: '',
      error: null,
      durationMs: 5,
      cpuMs: 1,
      submitted,
      variables: [],
      replReset: null,
    });
    s.emit({ type: 'iteration.end', ...e, iteration, appended: [], finalAnswer: submitted, durationMs: 20 });
  };
  const end = (e: ReturnType<typeof env>, iterations: number) =>
    s.emit({
      type: 'run.end',
      ...e,
      answer: 'done',
      stopReason: 'answered',
      message: null,
      iterations,
      durationMs: 100,
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0 },
    });

  start(root, shape.query);
  shape.calls.forEach((n, i) => {
    const iteration = i + 1;
    const last = i === shape.calls.length - 1;
    turn(root, iteration, tok.turn);
    block(
      root,
      iteration,
      () => {
        const batchId = `${id}-b${iteration}`;
        for (let k = 0; k < n; k++) {
          const callId = asCallId(`${id}-c${iteration}-${k}`);
          s.emit({
            type: 'subcall.start',
            ...root,
            callId,
            iteration,
            block: 0,
            kind: 'llm',
            leaf: false,
            prompt: `p${fill}`,
            model: 'm-sub',
            batch: n > 1 ? { batchId, index: k, size: n } : null,
            childRunId: null,
          });
          s.emit({
            type: 'subcall.end',
            ...root,
            callId,
            response: `r${fill}`,
            error: null,
            usage: { inputTokens: tok.call, outputTokens: 1, costUsd: shape.unpriced ? null : 0.0001 },
            latencyMs: 3,
          });
        }
        if (i === 0)
          for (let c = 0; c < (shape.children ?? 0); c++) {
            const callId = asCallId(`${id}-k${c}`);
            const child = env(`${id}-child${c}`, root.runId, 1);
            s.emit({
              type: 'subcall.start',
              ...root,
              callId,
              iteration,
              block: 0,
              kind: 'rlm',
              leaf: false,
              prompt: `p${fill}`,
              model: 'm',
              batch: null,
              childRunId: child.runId,
            });
            start(child, 'p', { runId: root.runId, iteration, block: 0, callId });
            turn(child, 1, tok.child);
            block(child, 1, () => undefined, 'child answer');
            end(child, 1);
            s.emit({
              type: 'subcall.end',
              ...root,
              callId,
              response: 'child answer',
              error: null,
              usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
              latencyMs: 50,
            });
          }
      },
      last ? 'done' : null,
    );
  });
  end(root, shape.calls.length);
  return s.events;
}

export function writeNativeLog(path: string, events: readonly TrajectoryEvent[], sessionId = 'session'): void {
  const header = {
    format: 'rlm-studio' as const,
    version: EVENT_SCHEMA_VERSION,
    sessionId: asSessionId(sessionId),
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  writeFileSync(path, [...encodeNative(header, events)].join(''));
}

export interface GeneratedTask {
  id: string;
  /** Which session of the task (`eval --repeat`); 0 when absent. */
  repeat?: number;
  correct: boolean;
  shape: SessionShape;
  /** What results.jsonl records of the answer and the expected value (for re-scoring). */
  answer?: string | null;
  expected?: string | number | string[];
}

/** An evaluation folder as `rlm-studio eval --out` leaves it (the fields the readers use). */
export function writeEvalDir(dir: string, tasks: readonly GeneratedTask[]): void {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  writeFileSync(
    join(dir, 'eval.json'),
    JSON.stringify({ dataset: 'generated', model: 'm', subModel: 'm-sub', maxDepth: 2, maxIterations: 30 }),
  );
  const lines: string[] = [];
  for (const t of tasks) {
    const r = t.repeat ?? 0;
    const name = r === 0 ? t.id : `${t.id}.r${r}`;
    const log = join(dir, 'logs', `${name}.rlm.jsonl`);
    writeNativeLog(log, policySession(t.shape, name), name);
    lines.push(
      JSON.stringify({
        id: t.id,
        ...(r === 0 ? {} : { repeat: r }),
        kind: 'generated',
        sizeTokens: null,
        score: t.correct ? 1 : 0,
        correct: t.correct,
        stopReason: 'answered',
        iterations: t.shape.calls.length,
        durationMs: 100,
        usage: { inputTokens: 0, outputTokens: 0, calls: 0, costUsd: 0 },
        ...(t.answer === undefined ? {} : { answer: t.answer }),
        ...(t.expected === undefined ? {} : { expected: t.expected }),
        logFile: log,
      }),
    );
  }
  writeFileSync(join(dir, 'results.jsonl'), `${lines.join('\n')}\n`);
}
