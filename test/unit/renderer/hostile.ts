// A log crafted to run code if anything rendered it as HTML or followed links from it.
import type { TrajectoryEvent } from '../../../src-shared/events.ts';

export const HOSTILE = {
  script: '<script>window.__pwned=true</script>',
  img: '<img src=x onerror="window.__pwned=true">',
  link: '[click](javascript:window.__pwned=true) <a href="javascript:window.__pwned=true">x</a>',
};

export function hostileEvents(): TrajectoryEvent[] {
  const payload = `${HOSTILE.script} ${HOSTILE.img} ${HOSTILE.link}`;
  const env = (seq: number, extra: object) => ({
    v: 1,
    seq,
    t: seq * 10,
    ts: '2026-01-01T00:00:00.000Z',
    runId: `r0<script>x</script>`,
    parentRunId: null,
    depth: 0,
    ...extra,
  });
  const limits = {
    maxDepth: 1,
    maxIterations: 3,
    maxBudgetUsd: null,
    maxTimeoutMs: null,
    maxTokens: null,
    maxErrors: null,
    maxConcurrency: 1,
  };
  const events = [
    env(0, {
      type: 'run.start',
      spawnedBy: null,
      turn: 0,
      model: `m${HOSTILE.img}`,
      subModel: null,
      query: payload,
      context: { type: 'string', totalChars: 1, chunkLengths: [1] },
      limits,
      messages: [{ role: 'system', content: payload }],
      tools: [],
    }),
    env(1, { type: 'iteration.start', iteration: 1, appended: [{ role: 'user', content: payload }], historyLength: 2, historyTokens: 10 }),
    env(2, {
      type: 'model.reply',
      iteration: 1,
      purpose: 'turn',
      model: 'm',
      text: `${payload}\n\`\`\`repl\nprint("${HOSTILE.script}")\n\`\`\``,
      usage: { inputTokens: 1, outputTokens: 1, costUsd: null },
      latencyMs: 5,
    }),
    env(3, { type: 'block.start', iteration: 1, block: 0, code: `print("${HOSTILE.script}")` }),
    env(4, {
      type: 'subcall.start',
      callId: 'c1',
      iteration: 1,
      block: 0,
      kind: 'llm',
      leaf: false,
      prompt: payload,
      model: 'm',
      batch: null,
      childRunId: null,
    }),
    env(5, {
      type: 'subcall.end',
      callId: 'c1',
      response: payload,
      error: null,
      usage: { inputTokens: 1, outputTokens: 1, costUsd: null },
      latencyMs: 2,
    }),
    env(6, {
      type: 'block.end',
      iteration: 1,
      block: 0,
      stdout: `${payload}\n${'A'.repeat(30_000)}`,
      stderr: HOSTILE.img,
      error: { name: '<b>Err</b>', message: payload },
      durationMs: 3,
      cpuMs: 1,
      submitted: null,
      variables: ['<script>'],
      replReset: null,
    }),
    env(7, { type: 'iteration.end', iteration: 1, appended: [], finalAnswer: payload, durationMs: 20 }),
    env(8, {
      type: 'run.end',
      answer: payload,
      stopReason: 'answered',
      message: HOSTILE.link,
      iterations: 1,
      durationMs: 90,
      usage: { inputTokens: 2, outputTokens: 2, costUsd: null, calls: 2 },
    }),
  ];
  return events as unknown as TrajectoryEvent[];
}

/** The same as a native log file's text. */
export function hostileNativeText(): string {
  const header = { format: 'rlm-studio', version: 1, sessionId: 'hostile<script>', createdAt: '2026-01-01T00:00:00.000Z' };
  return [header, ...hostileEvents()].map((x) => JSON.stringify(x)).join('\n') + '\n';
}
