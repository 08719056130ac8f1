// Each eval task's mock-llm policy solves a small instance end to end: the real engine and
// sandbox, the real OpenAI SDK over HTTP to mock-llm, scored by the task's scorer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplLanguage, TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { generateTask, scoreAnswer, TASK_KINDS } from '../../../src-main/eval/tasks/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlm({ latencyMs: 0, costPerMTok: 1 });
});
afterAll(async () => {
  await server.close();
});

async function solve(kind: (typeof TASK_KINDS)[number], sizeTokens: number, maxDepth: number, repl: ReplLanguage = 'javascript') {
  const task = generateTask(kind, sizeTokens, 11);
  const events: TrajectoryEvent[] = [];
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
  const session = new RlmConversation({ client, model: 'mock-root', maxDepth, repl }, { sink: new EventRecorder((e) => events.push(e)) });
  try {
    const outcome = await session.completion(task.context, task.query);
    return { task, outcome, events, score: scoreAnswer(task.scorer, task.expected, outcome.answer) };
  } finally {
    session.close();
  }
}

describe('eval-task policies through the engine over HTTP', () => {
  it.each(TASK_KINDS)('%s is solved exactly at 2^13 tokens', async (kind) => {
    const { outcome, score, events } = await solve(kind, 2 ** 13, 1);
    expect(outcome.stopReason).toBe('answered');
    expect(score).toMatchObject({ score: 1, correct: true });
    // A competent decomposition: no failing blocks, and sub-LMs did the reading.
    expect(events.filter((e) => e.type === 'block.end' && e.error !== null)).toEqual([]);
    expect(events.some((e) => e.type === 'subcall.start')).toBe(true);
  });

  it('call shapes: S-NIAH 3 root calls + 1 sub-call; OOLONG 2 root turns + one batch', async () => {
    const s = await solve('sniah', 2 ** 13, 1);
    expect(s.outcome.iterations).toBe(3);
    expect(s.outcome.usage.calls).toBe(4);
    const o = await solve('oolong', 2 ** 14, 1);
    expect(o.outcome.iterations).toBe(2);
    const batches = new Set(o.events.flatMap((e) => (e.type === 'subcall.start' && e.batch ? [e.batch.batchId] : [])));
    expect(batches.size).toBe(1);
  });

  it('browsecomp with recursion: each reader is a child RLM, still exact', async () => {
    const { outcome, score, events } = await solve('browsecomp', 2 ** 13, 2);
    expect(score.correct).toBe(true);
    expect(outcome.iterations).toBe(5);
    expect(events.some((e) => e.type === 'run.start' && e.depth === 1)).toBe(true);
  });

  it.each(TASK_KINDS)('%s is solved exactly in a Python session, writing Python', async (kind) => {
    const { outcome, score, events } = await solve(kind, 2 ** 13, kind === 'browsecomp' ? 2 : 1, 'python');
    expect(outcome.stopReason).toBe('answered');
    expect(score).toMatchObject({ score: 1, correct: true });
    expect(events.filter((e) => e.type === 'block.end' && e.error !== null)).toEqual([]);
    expect(events.some((e) => e.type === 'block.start' && e.code.includes('answer["ready"] = True'))).toBe(true);
    expect(events.filter((e) => e.type === 'run.start').every((e) => e.type === 'run.start' && e.repl === 'python')).toBe(true);
  });
});
