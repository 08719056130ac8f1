// Redis connections for the queue. BullMQ 6 takes the Redis client as an optional peer; we use
// ioredis (a dependency of ours), loaded only by the commands that reach Redis.
import { Redis } from 'ioredis';

export class QueueSetupError extends Error {
  override name = 'QueueSetupError';
}

/** A connection to Redis, shared by BullMQ and this folder's own commands. */
export type RedisClient = Redis;

/** Checks a --queue URL: redis://[user:password@]host:port[/db] (or rediss:// for TLS). */
export function checkQueueUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new QueueSetupError(`--queue must be a Redis URL such as redis://127.0.0.1:6379/0, got "${url}"`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new QueueSetupError(`--queue must be a redis:// or rediss:// URL, got "${url}"`);
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new QueueSetupError(`--queue ${url}: the database after the host must be a number`);
  return url;
}

/** Told once when Redis stops answering (with the first error) and once when it answers again. */
export interface Reachability {
  unreachable(err: Error): void;
  reachable(): void;
}

/**
 * A connection that waits through Redis restarts instead of failing commands
 * (`maxRetriesPerRequest: null`, as BullMQ requires for workers), reconnecting every ≤ 1 s.
 * Each outage is told once to `watch`, not once per failed reconnection.
 */
export function connectRedis(url: string, watch?: Reachability): RedisClient {
  const client = new Redis(checkQueueUrl(url), {
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
  });
  let down = false;
  // Without a listener ioredis prints every failed reconnection attempt.
  client.on('error', (err) => {
    if (!down) watch?.unreachable(err);
    down = true;
  });
  client.on('ready', () => {
    if (down) watch?.reachable();
    down = false;
  });
  return client;
}

/** The words for an outage, for a coordinator or a worker (`who`). */
export function sayReachability(who: string, url: string, say: (line: string) => void): Reachability {
  const where = url.replace(/\/\/[^@/]*@/, '//…@');
  return {
    unreachable: (err) => say(`${who}: Redis at ${where} unreachable (${err.message}); waiting for it`),
    reachable: () => say(`${who}: Redis at ${where} reachable again`),
  };
}
