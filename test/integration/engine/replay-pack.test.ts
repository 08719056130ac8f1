// A fork of a run made with a prompt pack other than ours (issue 37): the replay client
// serves recorded turns and sends the final-answer and compaction requests live, whatever
// texts the run's pack gives them. The run is made on a marker pack against mock-llm over real
// HTTP, then forked at its last turn with an edited reply, as the app does.
import { afterAll, describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { buildReplayPlan, ReplayClient } from '../../../src-main/lm/replay-client.ts';
import type { Policy } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { markerPack } from '../../support/marker-pack.ts';

const servers: MockLlmServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('a fork of a run made with another prompt pack', () => {
  it('serves recorded turns and asks the model for the final answer and the compaction summaries', async () => {
    const pack = markerPack('javascript');
    let summaries = 0;
    const policy: Policy = (req) => {
      const last = req.messages.at(-1)?.content ?? '';
      if (last === pack.texts.finalAnswerRequest) return 'the live final answer';
      if (last === pack.texts.compactionRequest) return `live summary ${++summaries}`;
      return '```repl\nprint("looking");\n```';
    };
    const server = await startMockLlm({ policy, prompts: pack });
    servers.push(server);
    const http = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
    // A tiny window: every turn is compacted first, so compaction requests fall in the replayed turns.
    const config = {
      model: 'mock-root',
      repl: 'javascript' as const,
      prompts: pack,
      maxIterations: 3,
      compaction: true,
      contextWindow: 120,
    };

    const events: TrajectoryEvent[] = [];
    const original = new RlmConversation({ ...config, client: http }, { sink: new EventRecorder((e) => events.push(e)) });
    const first = await original.completion('the context', 'What?').finally(() => original.close());
    expect(first.stopReason).toBe('max_iterations');
    expect(first.answer).toBe('the live final answer');
    const root = events.find((e) => e.type === 'run.start')!.runId;

    const plan = buildReplayPlan(events, { runId: root, iteration: 3 }, 'an edited reply');
    const replay = new ReplayClient(plan, http);
    const recorder = new EventRecorder();
    recorder.listen((e) => replay.observe(e));
    const forked: TrajectoryEvent[] = [];
    recorder.listen((e) => forked.push(e));
    const fork = new RlmConversation({ ...config, client: replay }, { sink: recorder });
    const outcome = await fork.completion('the context', 'What?').finally(() => fork.close());

    const replies = forked.flatMap((e) => (e.type === 'model.reply' ? [{ purpose: e.purpose, text: e.text }] : []));
    // Turns 1 and 2 from the record, turn 3 the edited reply; each summary and the final answer asked live.
    expect(replies.filter((r) => r.purpose === 'turn').map((r) => r.text)).toEqual([
      '```repl\nprint("looking");\n```',
      '```repl\nprint("looking");\n```',
      'an edited reply',
    ]);
    const compactions = replies.filter((r) => r.purpose === 'compaction').map((r) => r.text);
    expect(compactions.length).toBeGreaterThan(0);
    for (const text of compactions) expect(text).toMatch(/^live summary \d+$/);
    expect(replies.filter((r) => r.purpose === 'final_answer').map((r) => r.text)).toEqual(['the live final answer']);
    expect(outcome.answer).toBe('the live final answer');
  });
});
