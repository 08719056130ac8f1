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

/**
 * A connection that waits through Redis restarts instead of failing commands
 * (`maxRetriesPerRequest: null`, as BullMQ requires for workers), reconnecting every ≤ 1 s.
 */
export function connectRedis(url: string, onError?: (err: Error) => void): RedisClient {
  const client = new Redis(checkQueueUrl(url), {
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
  });
  // Without a listener ioredis prints every failed reconnection attempt.
  client.on('error', (err) => onError?.(err));
  return client;
}
