// Messages between a desktop host (in an Electron utility process) and the Electron main
// process, for what only the main process can do: start utility processes (session
// workers) and use the OS keychain (safeStorage). They share the host process's parentPort
// with the connection multiplexing of ../transport/host-process.ts; every `t` here is
// distinct from those. Validated on both sides.
import { z } from 'zod';

const id = z.number().int().positive();

export const HostToBroker = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('worker.spawn'), id }),
  z.strictObject({ t: z.literal('worker.kill'), id }),
  /** Store (or, with null, remove) a key under a keychain reference. The reply never carries the key. */
  z.strictObject({
    t: z.literal('keys.set'),
    req: id,
    ref: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .max(200),
    key: z.string().min(1).max(10_000).nullable(),
  }),
]);
export type HostToBroker = z.infer<typeof HostToBroker>;

export const BrokerToHost = z.discriminatedUnion('t', [
  /** Carries the host's end of the worker's MessageChannel as the message's only port. */
  z.strictObject({ t: z.literal('worker.port'), id, pid: z.number().int().optional() }),
  z.strictObject({ t: z.literal('worker.stderr'), id, text: z.string() }),
  z.strictObject({ t: z.literal('worker.exit'), id, how: z.string() }),
  z.strictObject({ t: z.literal('keys.result'), req: id, ok: z.boolean(), error: z.string().optional() }),
]);
export type BrokerToHost = z.infer<typeof BrokerToHost>;
