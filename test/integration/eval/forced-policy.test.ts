// `mock-llm --policy sniah|oolong|oolong-pairs|browsecomp`: a dataset whose queries are worded
// differently from the generator's is not recognised by `auto` (it falls back to the
// scenarios and fails), but the named task policy plays it and solves it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { generateTask, scoreAnswer } from '../../../src-main/eval/tasks/index.ts';
import type { TaskKind } from '../../../src-main/eval/tasks/types.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { POLICIES, POLICY_NAMES } from '../../../src-main/mock-llm/policies/index.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { runCli } from '../support/cli.ts';

/** Each generated query rewritten so no generator phrase remains, keeping what the task needs. */
const REWORD: Record<TaskKind, (q: string) => string> = {
  sniah: (q) =>
    q.replace(
      /What is the special passcode for the (\S+) vault\?/,
      'Somewhere below is the passcode for the $1 vault. Which number is it?',
    ),
  oolong: (q) => q.replace('Classify each question into exactly one of these labels', 'Each question falls under one of these labels'),
  'oolong-pairs': (q) =>
    q
      .replace('Classify each question into exactly one of these labels', 'Each question falls under one of these labels')
      .replace('List every pair of user IDs', 'Give all pairs of user IDs'),
  browsecomp: (q) => q.replace('the company that acquired the maker of the product', 'the buyer of the maker of the product'),
};

const servers: MockLlmServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function solve(kind: TaskKind, policy: keyof typeof POLICIES) {
  const server = await startMockLlm({ latencyMs: 0, policy: POLICIES[policy] });
  servers.push(server);
  const task = generateTask(kind, 2 ** 13, 5);
  const query = REWORD[kind](task.query);
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'x', maxRetries: 0 });
  const session = new RlmConversation({ client, model: 'mock-root', maxIterations: 8 }, { sink: new EventRecorder(() => undefined) });
  try {
    const outcome = await session.completion(task.context, query);
    return { query, original: task.query, score: scoreAnswer(task.scorer, task.expected, outcome.answer) };
  } finally {
    session.close();
  }
}

describe('mock-llm task policies by name', () => {
  beforeAll(() => {
    expect(POLICY_NAMES).toEqual(['auto', 'scenarios', 'sniah', 'oolong', 'oolong-pairs', 'browsecomp']);
  });

  it.each(['sniah', 'oolong', 'oolong-pairs', 'browsecomp'] as const)(
    '%s: reworded query fails under auto, is solved when forced',
    async (kind) => {
      const auto = await solve(kind, 'auto');
      expect(auto.query).not.toBe(auto.original);
      expect(auto.score.correct).toBe(false);
      const forced = await solve(kind, kind);
      expect(forced.score).toMatchObject({ score: 1, correct: true });
    },
  );

  it('the CLI offers them and refuses unknown names', async () => {
    const help = await runCli(['mock-llm', '--help']);
    expect(help.stdout).toMatch(/sniah, oolong, oolong-pairs, browsecomp/);
    const bad = await runCli(['mock-llm', '--policy', 'nope']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Allowed choices are auto, scenarios, sniah, oolong, oolong-pairs, browsecomp/);
  });
});
