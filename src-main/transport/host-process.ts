// Entry of a host running in its own process: the desktop shell starts it in the project's
// own Node 24 (see ../electron/session-node.ts), so a crash in the host cannot take the
// window down and no Electron process loads a sandbox. Many client connections are
// multiplexed over the one fork() IPC channel with the parent: { t: 'open'|'msg'|'close', c }
// in, { c, m } out; with `keychain`, keys go to the parent too (../host/keychain-protocol.ts);
// the parent asks where a session's files are (host-lookups.ts).
import { z } from 'zod';
import { withoutUndefined } from '../../src-shared/defined.ts';
import { shellKeyStore } from '../host/key-store.ts';
import { Host, type HostOptions } from '../host/host.ts';
import { forkLauncher } from '../host/worker-launcher.ts';
import type { HostConnection } from '../host/endpoint.ts';
import { answerLookup, LookupRequest } from './host-lookups.ts';

const Options = z.strictObject({
  runsDir: z.string(),
  settingsDir: z.string(),
  demoLatencyMs: z.number().int().nonnegative().optional(),
  /** The worker entry when not beside this file as worker.ts (the bundled app: worker.mjs). */
  workerEntry: z.string().optional(),
  /** The parent stores keys (the desktop shell's OS keychain): `profiles.setKey` asks it. */
  keychain: z.boolean().optional(),
});
const Keys = z.record(z.string(), z.string());
const Incoming = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('open'), c: z.number().int() }),
  z.strictObject({ t: z.literal('msg'), c: z.number().int(), m: z.unknown() }),
  z.strictObject({ t: z.literal('close'), c: z.number().int() }),
]);

const parsed = Options.safeParse(JSON.parse(process.env['RLM_HOST_OPTIONS'] ?? '{}'));
if (!parsed.success) {
  process.stderr.write(`rlm-studio host: bad RLM_HOST_OPTIONS: ${parsed.error.issues[0]?.message}\n`);
  process.exit(2);
}
// Keys from the parent's keychain: for the host's own lookups only, out of the environment
// the workers inherit.
const keyEnv = Keys.safeParse(JSON.parse(process.env['RLM_HOST_KEYS'] ?? '{}'));
delete process.env['RLM_HOST_KEYS'];
if (!keyEnv.success) {
  process.stderr.write('rlm-studio host: bad RLM_HOST_KEYS: expected an object of strings\n');
  process.exit(2);
}
if (!process.send) {
  process.stderr.write('rlm-studio host: must be started with an IPC channel (child_process.fork or spawn with "ipc")\n');
  process.exit(2);
}
const post = (m: unknown): void => {
  if (process.connected) process.send?.(m);
};
const { workerEntry, keychain, ...hostOptions } = parsed.data;
const keys = keychain ? shellKeyStore(post) : null;
const host = new Host({
  ...withoutUndefined<HostOptions>(hostOptions),
  label: 'rlm-studio desktop',
  workerLauncher: forkLauncher(workerEntry),
  resolveKey: (ref) => keyEnv.data[ref] ?? null,
  ...(keys ? { keyStore: keys } : {}),
});
const conns = new Map<number, HostConnection>();

process.on('message', (raw: unknown) => {
  if (keys?.handle(raw)) return;
  const lookup = LookupRequest.safeParse(raw);
  if (lookup.success) return post(answerLookup(lookup.data, host));
  const m = Incoming.safeParse(raw);
  if (!m.success) return;
  const { c } = m.data;
  switch (m.data.t) {
    case 'open':
      conns.get(c)?.close();
      conns.set(
        c,
        host.connect((msg) => post({ c, m: msg })),
      );
      return;
    case 'msg':
      conns.get(c)?.receive(m.data.m);
      return;
    case 'close':
      conns.get(c)?.close();
      conns.delete(c);
      return;
  }
});
// The parent is gone: stop the workers and leave.
process.on('disconnect', () => void host.close().finally(() => process.exit(0)));
post({ ready: true });
