// Shared by the engine's integration tests: a session against a mock-llm whose replies each
// test scripts, the events it recorded, and the invariants every event stream keeps.
import { afterEach, expect } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, type ReplFactory, RlmConversation, type RlmConfig, type RunOutcome } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { classify, type Policy, type PolicyRequest } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmOptions, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

export const repl = (code: string): string => `Running code.\n\`\`\`repl\n${code}\n\`\`\``;

/** Replies to RLM turns by the run's turn number and to sub-calls by `sub`. */
export function turns(byTurn: (turn: number, req: PolicyRequest) => string, sub: (prompt: string) => string = (p) => `echo: ${p}`): Policy {
  return (req) => {
    const c = classify(req);
    if (c.kind === 'sub') return sub(c.lastUser);
    if (c.kind === 'final') return 'final answer from text';
    if (c.kind === 'compaction') return 'SUMMARY of the work so far.';
    return byTurn(c.turn ?? 1, req);
  };
}

export interface Harness {
  events: TrajectoryEvent[];
  session: RlmConversation;
  server: MockLlmServer;
  complete(context: Parameters<RlmConversation['completion']>[0], query?: string | null, signal?: AbortSignal): Promise<RunOutcome>;
}

export async function harness(
  policy: Policy,
  config: Partial<RlmConfig> = {},
  opts: {
    persistent?: boolean;
    latencyMs?: number;
    maxRetries?: number;
    replFactory?: ReplFactory;
    mock?: MockLlmOptions;
    stream?: boolean;
  } = {},
): Promise<Harness> {
  const server = await startMockLlm({ costPerMTok: 2, ...opts.mock, policy, latencyMs: opts.latencyMs ?? 0 });
  servers.push(server);
  const events: TrajectoryEvent[] = [];
  const recorder = new EventRecorder((e) => events.push(e));
  const client = new OpenAiCompatibleClient({
    baseUrl: server.url,
    apiKey: 'test',
    maxRetries: opts.maxRetries ?? 0,
    ...(opts.stream !== undefined ? { stream: opts.stream } : {}),
  });
  const session = new RlmConversation(
    { client, model: 'mock-root', ...config },
    { sink: recorder, persistent: opts.persistent ?? false, ...(opts.replFactory ? { replFactory: opts.replFactory } : {}) },
  );
  return {
    events,
    session,
    server,
    complete: (context, query = 'q', signal) => session.completion(context, query, signal ? { signal } : {}),
  };
}

export function ofType<T extends TrajectoryEvent['type']>(events: TrajectoryEvent[], type: T): Extract<TrajectoryEvent, { type: T }>[] {
  return events.filter((e): e is Extract<TrajectoryEvent, { type: T }> => e.type === type);
}

/** Structural invariants every event stream must keep. */
export function checkInvariants(events: TrajectoryEvent[]): void {
  events.forEach((e, i) => expect(e.seq).toBe(i));
  const runs = new Map<string, TrajectoryEvent[]>();
  for (const e of events) runs.set(e.runId, [...(runs.get(e.runId) ?? []), e]);
  for (const list of runs.values()) {
    expect(list[0]!.type).toBe('run.start');
    expect(list.at(-1)!.type).toBe('run.end');
  }
  const open = new Map<string, number>();
  for (const e of events) {
    if (e.type === 'subcall.start') open.set(e.callId, e.seq);
    if (e.type === 'subcall.end') {
      expect(open.has(e.callId)).toBe(true);
      open.delete(e.callId);
    }
  }
  expect(open.size).toBe(0);
  for (const start of ofType(events, 'run.start').filter((e) => e.spawnedBy)) {
    const call = ofType(events, 'subcall.start').find((s) => s.callId === start.spawnedBy!.callId)!;
    const end = ofType(events, 'subcall.end').find((s) => s.callId === start.spawnedBy!.callId)!;
    const childEnd = ofType(events, 'run.end').find((r) => r.runId === start.runId)!;
    expect(call.childRunId).toBe(start.runId);
    expect(call.seq).toBeLessThan(start.seq);
    expect(childEnd.seq).toBeLessThan(end.seq);
  }
}
