// Backoff per endpoint shared by every worker through Redis: a 429 or 5xx seen by one worker
// holds back the requests of all of them to that endpoint, for the endpoint's Retry-After or an
// exponential delay, instead of each process hammering it on its own schedule. It wraps fetch,
// so the OpenAI SDK's own retries pass through the same gate.
import { setTimeout as sleep } from 'node:timers/promises';
import { keys } from './keys.ts';
import type { RedisClient } from './redis.ts';

export interface BackoffOptions {
  /** First delay without a Retry-After; doubles per consecutive failure. */
  baseMs?: number;
  maxMs?: number;
}

export interface BackoffStats {
  /** Requests that waited because the endpoint was held back (by this worker or another). */
  waits: number;
  waitedMs: number;
  /** 429/5xx responses this worker reported. */
  reported: number;
}

/** The delay an endpoint asked for: `retry-after-ms`, or `retry-after` in seconds or as a date. */
function retryAfterMs(headers: Headers): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = headers.get('retry-after');
  if (ra === null) return null;
  const s = Number(ra);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const at = Date.parse(ra);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

export class SharedEndpointBackoff {
  readonly stats: BackoffStats = { waits: 0, waitedMs: 0, reported: 0 };
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly failing = new Set<string>();
  private readonly redis: RedisClient;

  constructor(redis: RedisClient, opts: BackoffOptions = {}) {
    this.redis = redis;
    this.baseMs = opts.baseMs ?? 1000;
    this.maxMs = opts.maxMs ?? 60_000;
  }

  /** Waits while the endpoint is held back; returns the milliseconds waited. */
  async wait(endpoint: string): Promise<number> {
    let waited = 0;
    for (;;) {
      const ttl = await this.redis.pttl(keys.backoff(endpoint));
      if (ttl <= 0) break;
      if (waited === 0) this.stats.waits++;
      await sleep(ttl);
      waited += ttl;
    }
    this.stats.waitedMs += waited;
    return waited;
  }

  /** Holds the endpoint back for every worker: the delay it asked for, else base × 2^(consecutive failures − 1). */
  async report(endpoint: string, askedMs: number | null): Promise<number> {
    this.stats.reported++;
    this.failing.add(endpoint);
    const n = await this.redis.incr(keys.failures(endpoint));
    await this.redis.pexpire(keys.failures(endpoint), this.maxMs * 2);
    const delay = Math.max(1, Math.round(askedMs ?? Math.min(this.maxMs, this.baseMs * 2 ** (n - 1))));
    // Never shortens a longer hold another worker set: SET NX, then only extend (GT).
    await this.redis.set(keys.backoff(endpoint), String(delay), 'PX', delay, 'NX');
    await this.redis.pexpire(keys.backoff(endpoint), delay, 'GT');
    return delay;
  }

  private async recovered(endpoint: string): Promise<void> {
    if (!this.failing.delete(endpoint)) return;
    await this.redis.del(keys.failures(endpoint));
  }

  /** A fetch for the SDK that passes every request to `endpoint` through the shared gate. */
  fetchFor(endpoint: string, inner: typeof fetch = fetch): typeof fetch {
    return async (input, init) => {
      await this.wait(endpoint);
      const res = await inner(input, init);
      if (res.status === 429 || res.status >= 500) await this.report(endpoint, retryAfterMs(res.headers));
      else if (res.ok) await this.recovered(endpoint);
      return res;
    };
  }
}
