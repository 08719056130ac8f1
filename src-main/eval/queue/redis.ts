// Redis connections for the queue. BullMQ 6 takes the Redis client as an optional peer; we use
// ioredis, loaded at run time so that commands without --queue never need it.
import { createRequire } from 'node:module';

export class QueueSetupError extends Error {
  override name = 'QueueSetupError';
}

/** The commands this folder sends itself (BullMQ sends its own through the same client). */
export interface RedisClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ...args: (string | number)[]): Promise<string | null>;
  del(...keys: string[]): Promise<number>;
  incr(key: string): Promise<number>;
  pttl(key: string): Promise<number>;
  pexpire(key: string, ms: number, ...args: string[]): Promise<number>;
  sadd(key: string, ...members: string[]): Promise<number>;
  smembers(key: string): Promise<string[]>;
  ping(): Promise<string>;
  quit(): Promise<string>;
  disconnect(): void;
  on(event: 'error', fn: (err: Error) => void): unknown;
}

type RedisConstructor = new (url: string, options: Record<string, unknown>) => RedisClient;

let ctor: RedisConstructor | null = null;
function redisConstructor(): RedisConstructor {
  if (ctor) return ctor;
  try {
    const mod = createRequire(import.meta.url)('ioredis') as { default?: RedisConstructor } & RedisConstructor;
    ctor = mod.default ?? mod;
    return ctor;
  } catch (err) {
    throw new QueueSetupError(
      `--queue needs the ioredis package, which BullMQ uses to reach Redis and which is not installed here (${(err as Error).message.split('\n')[0]}); install it with npm install ioredis`,
    );
  }
}

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
  const Redis = redisConstructor();
  const client = new Redis(checkQueueUrl(url), {
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
  });
  // Without a listener ioredis prints every failed reconnection attempt.
  client.on('error', (err) => onError?.(err));
  return client;
}
