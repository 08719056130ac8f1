// Messages between a desktop host process and the Electron main process, for the one thing
// only the main process can do: use the OS keychain (safeStorage). They share the host
// process's IPC channel with the connection multiplexing of ../transport/host-process.ts;
// every `t` here is distinct from those. Validated on both sides.
import { z } from 'zod';

const req = z.number().int().positive();

/** Store (or, with null, remove) a key under a keychain reference. The reply never carries the key. */
export const KeychainRequest = z.strictObject({
  t: z.literal('keys.set'),
  req,
  ref: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .max(200),
  key: z.string().min(1).max(10_000).nullable(),
});
export type KeychainRequest = z.infer<typeof KeychainRequest>;

export const KeychainReply = z.strictObject({ t: z.literal('keys.result'), req, ok: z.boolean(), error: z.string().optional() });
export type KeychainReply = z.infer<typeof KeychainReply>;
