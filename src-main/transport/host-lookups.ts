// The parent of a host process asks it where a session's files are (for the desktop app's
// /api/log and /api/context, session-files.ts): one request, one reply, matched by `req`,
// over the host process's IPC channel beside the connection multiplexing of host-process.ts
// and the keychain messages (../host/keychain-protocol.ts); every `t` here is distinct from
// those. Validated on both sides.
import { z } from 'zod';
import type { SessionContext } from '../host/endpoint.ts';

const req = z.number().int().positive();

export const LookupRequest = z.strictObject({
  t: z.literal('lookup'),
  req,
  what: z.enum(['logFile', 'context']),
  sessionId: z.string().max(1000),
});
export type LookupRequest = z.infer<typeof LookupRequest>;

export const LookupReply = z.strictObject({
  t: z.literal('lookup.result'),
  req,
  /** What the host's lookup returned (checked against what was asked by the asker), or absent with `error`. */
  value: z.unknown().optional(),
  error: z.string().optional(),
});
export type LookupReply = z.infer<typeof LookupReply>;

export const LogFileValue = z.string().nullable();
export const ContextValue: z.ZodType<SessionContext | null> = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('file'), path: z.string(), name: z.string() }),
    z.strictObject({ kind: z.literal('text'), text: z.string(), name: z.string() }),
  ])
  .nullable();

/** The host process's side: the reply to a request, from its Host's own lookups. */
export function answerLookup(
  request: LookupRequest,
  host: { logFileOf(id: string): string | null; contextOf(id: string): SessionContext | null },
): LookupReply {
  try {
    const value = request.what === 'logFile' ? host.logFileOf(request.sessionId) : host.contextOf(request.sessionId);
    return { t: 'lookup.result', req: request.req, value };
  } catch (err) {
    return { t: 'lookup.result', req: request.req, error: err instanceof Error ? err.message : String(err) };
  }
}
