// The requests rebuilt from a log are the requests that went out: a real session (sub-calls,
// a batch, a child run, a compaction, the final-answer request) against mock-llm over HTTP,
// every request recorded as the client sent it, compared with what the events fold into.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage, TrajectoryEvent } from '../../../src-shared/events.ts';
import { type ModelCall, ModelCallFolder, type SubcallRecord } from '../../../src-shared/trajectory/model-calls.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import type { CompletionRequest, CompletionResult, LmClient } from '../../../src-main/lm/types.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { SftExporter, type SftSelection } from '../../../src-main/export/sft.ts';

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const repl = (code: string): string => `Working.\n\`\`\`repl\n${code}\n\`\`\``;

/** Root: sub-calls in turn 1, a child run in turn 2, never an answer (so the final-answer request goes out). */
const policy: Policy = (req) => {
  const c = classify(req);
  if (c.kind === 'sub') return `sub reply to ${c.lastUser.slice(0, 20)}`;
  if (c.kind === 'final') return 'the final answer';
  if (c.kind === 'compaction') return 'SUMMARY so far';
  // Only the root was given a query.
  const child = !req.messages.some((m) => m.content.includes('what is it?'));
  if (child) return repl('answer.content = "child done"; answer.ready = true;');
  if (c.turn === 1) return repl('print(llm_query("one")); print(llm_query_batched(["a", "b", "c"]).join("|"));');
  if (c.turn === 2) return repl('print(rlm_query("child task: count"));');
  return repl(`print("turn ${c.turn}", "x".repeat(2000));`);
};

interface Sent {
  model: string;
  messages: ChatMessage[];
  reply: string;
}

class RecordingClient implements LmClient {
  readonly sent: Sent[] = [];
  private readonly inner: LmClient;
  constructor(inner: LmClient) {
    this.inner = inner;
  }
  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const messages = req.messages.map((m) => ({ ...m }));
    const res = await this.inner.complete(req);
    this.sent.push({ model: req.model, messages, reply: res.text });
    return res;
  }
}

async function recordedSession(): Promise<{ events: TrajectoryEvent[]; sent: Sent[] }> {
  const server = await startMockLlm({ policy, latencyMs: 0, costPerMTok: 2 });
  servers.push(server);
  const client = new RecordingClient(new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 }));
  const events: TrajectoryEvent[] = [];
  const session = new RlmConversation(
    {
      client,
      model: 'mock-root',
      subModel: 'mock-sub',
      maxDepth: 2,
      maxIterations: 4,
      compaction: true,
      contextWindow: 2500,
      compactionThreshold: 0.5,
    },
    { sink: new EventRecorder((e) => events.push(e)) },
  );
  await session.completion('some context '.repeat(20), 'what is it?');
  session.close();
  return { events, sent: client.sent };
}

const key = (s: Sent): string => JSON.stringify([s.model, s.messages, s.reply]);

describe('model calls rebuilt from events', () => {
  it('equal the requests the client sent, every purpose and depth', async () => {
    const { events, sent } = await recordedSession();
    const calls: ModelCall[] = [];
    const subcalls: SubcallRecord[] = [];
    const folder = new ModelCallFolder({ call: (c) => calls.push(c), subcall: (s) => subcalls.push(s) });
    for (const e of events) folder.push(e);
    folder.flush();

    const purposes = new Set(calls.map((c) => c.purpose));
    expect(purposes).toEqual(new Set(['turn', 'subcall', 'compaction', 'final_answer']));
    expect(calls.some((c) => c.depth === 1 && c.purpose === 'turn')).toBe(true); // the child run's turns
    expect(calls.filter((c) => c.purpose === 'subcall').map((c) => c.depth)).toEqual([1, 1, 1, 1]);
    expect(calls.map((c) => key({ model: c.model, messages: c.messages, reply: c.reply })).sort()).toEqual(sent.map(key).sort());

    const child = subcalls.find((s) => s.childRunId !== null)!;
    expect(child.response).toBe('child done');
    const childEnd = events.find((e) => e.type === 'run.end' && e.runId === child.childRunId);
    expect(childEnd?.type === 'run.end' && child.usage.inputTokens).toBe(childEnd?.type === 'run.end' ? childEnd.usage.inputTokens : -1);
    expect(child.usage.inputTokens).toBeGreaterThan(0);
    expect(
      subcalls
        .filter((s) => s.batch !== null)
        .map((s) => s.batch!.index)
        .sort(),
    ).toEqual([0, 1, 2]);
  });

  it('become examples selected by depth and by how the trajectory ended', async () => {
    const { events, sent } = await recordedSession();
    const run = (selection: Partial<SftSelection>): { lines: Record<string, unknown>[]; dropped: Record<string, number> } => {
      const lines: Record<string, unknown>[] = [];
      const ex = new SftExporter({
        selection: { onlyAnswered: false, correctLogs: null, depth: null, maxIterations: null, ...selection },
        format: 'openai',
        withSource: true,
        write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>),
      });
      const log = ex.beginLog({ file: 'x.rlm.jsonl', sessionId: null });
      for (const e of events) log.push(e);
      log.end();
      return { lines, dropped: ex.result().examples.dropped };
    };
    const all = run({});
    expect(all.lines).toHaveLength(sent.length);
    const first = all.lines.find((l) => (l['source'] as { purpose: string }).purpose === 'turn')!;
    const msgs = first['messages'] as ChatMessage[];
    expect(msgs[0]!.role).toBe('system');
    expect(msgs.at(-1)!.role).toBe('assistant');

    const root = run({ depth: 0 });
    expect(root.lines.every((l) => (l['source'] as { depth: number }).depth === 0)).toBe(true);
    expect(root.lines.length).toBe(
      sent.filter((s) => s.model === 'mock-root' && s.messages.some((m) => m.content.includes('what is it?'))).length,
    );
    expect(root.dropped['depth 1, not 0']).toBe(sent.length - root.lines.length);

    const answered = run({ onlyAnswered: true });
    expect(answered.lines).toHaveLength(0);
    expect(answered.dropped['not answered (max_iterations)']).toBe(sent.length);
    expect(run({ maxIterations: 3 }).dropped['more than 3 iterations']).toBe(sent.length);
  });
});
