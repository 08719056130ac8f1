// An in-process host and a protocol client wired to it through a JSON round trip, so
// everything crosses the same serialisation a real carrier would.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import type { EndpointProfile, SessionSummary } from '../../../src-shared/protocol.ts';
import { ProtocolClient, type ProtocolCarrier } from '../../../src-shared/protocol-client.ts';
import { Host, type HostOptions } from '../../../src-main/host/host.ts';
import { endpointCarrier, openWebSocketCarrier } from '../../../src-main/transport/node-carriers.ts';
import type { HostEndpoint } from '../../../src-main/host/endpoint.ts';
import { writeDataset } from '../../../src-main/cli/dataset-file.ts';
import { runEval } from '../../../src-main/eval/runner.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { startMockLlm, type MockLlmOptions, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { afterAll, afterEach, beforeAll } from 'vitest';

export function tempDirs(): { runsDir: string; settingsDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'rlm-host-'));
  return { runsDir: join(root, 'runs'), settingsDir: join(root, 'settings') };
}

/**
 * An evaluation of three generated tasks (sniah, oolong, browsecomp) against a mock model at
 * `baseUrl`, into `outDir`. Two iterations: browsecomp (5 turns) cannot finish, the others can; a known mix.
 */
async function runMixedEvaluation(baseUrl: string, workDir: string, outDir: string): Promise<void> {
  const ds = join(workDir, 'ds.jsonl');
  await writeDataset({ kinds: ['sniah', 'oolong', 'browsecomp'], sizes: [8192], seed: 1, count: 1, out: ds, inlineMaxChars: 1_000_000 });
  const client = new OpenAiCompatibleClient({ baseUrl, apiKey: 'x', maxRetries: 0 });
  await runEval({ dataset: ds, outDir, client, baseUrl, model: 'mock-root', maxIterations: 2, parallel: 3 });
}

export function makeHost(opts: Partial<HostOptions> = {}): Host {
  return new Host({ ...tempDirs(), demoLatencyMs: 5, ...opts });
}

/**
 * Hosts for a file's tests: the returned function makes one (`makeHost`'s options), and every
 * host made in a test is closed after it. A test may close one itself first (it is closed once).
 */
export function hostPerTest(): (opts?: Partial<HostOptions>) => Host {
  const made: Host[] = [];
  afterEach(async () => {
    for (const h of made.splice(0)) await h.close();
  });
  return (opts = {}) => {
    const h = makeHost(opts);
    const close = h.close.bind(h);
    let closing: Promise<void> | null = null;
    h.close = () => (closing ??= close());
    made.push(h);
    return h;
  };
}

/**
 * A stand-in for an object a `beforeAll` makes: every use forwards to that object, so a test
 * file can name it at the top and use it in its tests. Used before it exists, it throws.
 */
function madeInBeforeAll<T extends object>(what: string): { stand: T; set(value: T): void } {
  let real: T | null = null;
  const target = (): T => {
    if (real === null) throw new Error(`${what} is made in beforeAll: use it in a hook or a test`);
    return real;
  };
  const stand = new Proxy({} as T, {
    get: (_, key) => {
      const r = target();
      const v: unknown = Reflect.get(r, key, r);
      // Methods run on the object itself (its private fields are not the stand-in's).
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(r) : v;
    },
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
  return { stand, set: (value) => void (real = value) };
}

/**
 * One host (`makeHost`'s options) and a client in process for the tests of a file, or of the
 * describe block it is called in: made before them, the host closed after them.
 */
export function hostForTests(opts: Partial<HostOptions> = {}): { host: Host; c: TestClient } {
  const host = madeInBeforeAll<Host>('the host');
  const c = madeInBeforeAll<TestClient>('the client');
  let made: Host | null = null;
  beforeAll(() => {
    made = makeHost(opts);
    host.set(made);
    c.set(connectInProcess(made));
  });
  afterAll(async () => {
    await made?.close();
  });
  return { host: host.stand, c: c.stand };
}

/** A mock-llm server in this process for the tests of a file (or describe block): started before them, closed after them. */
export function mockLlmForTests(options: MockLlmOptions = {}): MockLlmServer {
  const server = madeInBeforeAll<MockLlmServer>('the mock-llm server');
  let started: MockLlmServer | null = null;
  beforeAll(async () => {
    started = await startMockLlm(options);
    server.set(started);
  });
  afterAll(async () => {
    await started?.close();
  });
  return server.stand;
}

/** A profile on a mock-llm at `baseUrl` (model mock-root, no sub-model, no key, no prices), with `extra` settings. */
export function mockProfile(name: string, baseUrl: string, extra: Partial<EndpointProfile> = {}): EndpointProfile {
  return { name, baseUrl, model: 'mock-root', subModel: null, apiKeyRef: null, prices: {}, ...extra };
}

/**
 * `runMixedEvaluation` into `dir` (in a temporary folder of its own, `tmp`) before the file's
 * tests, against a mock-llm of its own (no latency, a cost per token); the server is closed
 * after them. Its URL is known once the evaluation has run.
 */
export function mixedEvaluationForFile(prefix: string, name: string): { tmp: string; dir: string; readonly serverUrl: string } {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  let server: MockLlmServer | null = null;
  beforeAll(async () => {
    server = await startMockLlm({ latencyMs: 0, costPerMTok: 1 });
    await runMixedEvaluation(server.url, tmp, join(tmp, name));
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    tmp,
    dir: join(tmp, name),
    get serverUrl() {
      if (!server) throw new Error('the mock server is started in beforeAll');
      return server.url;
    },
  };
}

/** A client whose every message goes through JSON, like a real carrier. */
export function connectInProcess(host: HostEndpoint): TestClient {
  return new TestClient(endpointCarrier(host));
}

/** A protocol client that also records pushes, with helpers to wait on them. */
export class TestClient extends ProtocolClient {
  readonly events = new Map<string, TrajectoryEvent[]>();
  readonly statuses: SessionSummary[] = [];
  readonly progress: { sessionId: string; bytesRead: number; totalBytes: number }[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(carrier: ProtocolCarrier) {
    super(carrier);
    this.onPush((m) => {
      if (m.kind === 'events') {
        const list = this.events.get(m.sessionId) ?? [];
        for (const e of m.events) {
          // Fails loudly on gaps (the client drops repeats): the protocol promises neither.
          const expected = list.length === 0 ? e.seq : list.at(-1)!.seq + 1;
          if (e.seq !== expected) throw new Error(`event seq ${e.seq}, expected ${expected}`);
          list.push(e);
        }
        this.events.set(m.sessionId, list);
      } else if (m.kind === 'session') this.statuses.push(m.session);
      else if (m.kind === 'progress') this.progress.push(m);
      for (const w of [...this.waiters]) w();
    });
  }

  /** Closes the carrier (the host drops this connection's subscriptions). */
  closeCarrier(): void {
    this.carrier.close();
  }

  latest(sessionId: string): SessionSummary | undefined {
    for (let i = this.statuses.length - 1; i >= 0; i--) if (this.statuses[i]!.sessionId === sessionId) return this.statuses[i];
    return undefined;
  }

  /** Resolves when `check` returns a value (re-checked on every push). */
  until<T>(check: () => T | null | undefined | false, what = 'condition', timeoutMs = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const tryIt = (): boolean => {
        const v = check();
        if (v !== null && v !== undefined && v !== false) {
          this.waiters.delete(tryIt);
          clearTimeout(timer);
          resolve(v);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(tryIt);
        reject(new Error(`timed out waiting for ${what}; last status: ${JSON.stringify(this.statuses.at(-1))}`));
      }, timeoutMs);
      if (!tryIt()) this.waiters.add(tryIt);
    });
  }

  /** Every event of `sessionId`, once this client holds as many as `end` counts. */
  allEvents(sessionId: string, end: SessionSummary): Promise<TrajectoryEvent[]> {
    return this.until(
      () => ((this.events.get(sessionId)?.length ?? 0) === end.eventCount ? (this.events.get(sessionId) ?? []) : null),
      'all events',
    );
  }

  /**
   * Subscribes to `sessionId` from its first event, waits for it to end (finished, failed or
   * cancelled; an opened log, `saved`, has ended already) and for every one of its events.
   */
  async ended(sessionId: string): Promise<{ end: SessionSummary; events: TrajectoryEvent[] }> {
    const { session } = await this.call('subscribe', { sessionId, fromSeq: 0 });
    const end = session.status === 'saved' ? session : await this.status(sessionId, 'finished', 'failed', 'cancelled');
    return { end, events: await this.allEvents(sessionId, end) };
  }

  status(sessionId: string, ...wanted: SessionSummary['status'][]): Promise<SessionSummary> {
    return this.until(
      () => {
        const s = this.latest(sessionId);
        return s && wanted.includes(s.status) ? s : null;
      },
      `session ${sessionId} to be ${wanted.join('/')}`,
    );
  }

  paused(
    sessionId: string,
    match: (p: NonNullable<SessionSummary['pause']>) => boolean = () => true,
  ): Promise<NonNullable<SessionSummary['pause']>> {
    return this.until(() => {
      const s = this.latest(sessionId);
      return s?.status === 'paused' && s.pause && match(s.pause) ? s.pause : null;
    }, `session ${sessionId} to pause`);
  }
}

/** A client over a real WebSocket. */
export async function connectWs(
  wsUrl: string,
  headers: Record<string, string> = {},
): Promise<TestClient & { socket: import('ws').WebSocket }> {
  const { carrier, socket } = await openWebSocketCarrier(wsUrl, headers);
  return Object.assign(new TestClient(carrier), { socket });
}

/** The /ws address for a served page URL `http://h:p/?token=…`. */
export function wsUrlOf(pageUrl: string, token?: string): string {
  const u = new URL(pageUrl);
  return `ws://${u.host}/ws?token=${encodeURIComponent(token ?? u.searchParams.get('token') ?? '')}`;
}

export const demoStart = (name: 'recursive' | 'needle' | 'aggregate', extra: Record<string, unknown> = {}) => ({
  params: {
    profile: 'demo',
    context: { kind: 'demo' as const, name },
    query: null,
    limits: {},
    breakpoints: [],
    startPaused: false,
    ...extra,
  },
});
