// Entry of a host running in its own process (the desktop shell starts it, so a crash in
// the host cannot take the window down). Many client connections are multiplexed over the
// one IPC channel with the parent: { t: 'open'|'msg'|'close', c } in, { c, m } out.
import { z } from 'zod';
import { brokeredKeyStore } from '../host/key-store.ts';
import { Host } from '../host/session-manager.ts';
import { brokeredLauncher, forkLauncher, type ParentPortLike } from '../host/worker-launcher.ts';
import type { HostConnection } from '../host/endpoint.ts';

const Options = z.strictObject({
  runsDir: z.string(),
  settingsDir: z.string(),
  demoLatencyMs: z.number().int().nonnegative().optional(),
  /** The worker entry when not beside this file as worker.ts (the bundled app: worker.mjs). */
  workerEntry: z.string().optional(),
});
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
// Under Electron's utilityProcess the channel is `process.parentPort`; under fork() it is
// process.send / 'message'.
const parentPort = (process as unknown as { parentPort?: ParentPortLike }).parentPort;
// A utility process cannot fork Node children in a packaged app (the runAsNode fuse is
// off), so there the main process starts workers and keeps the keychain for us.
const broker = parentPort ? brokeredLauncher((m) => parentPort.postMessage(m)) : null;
const keys = parentPort ? brokeredKeyStore((m) => parentPort.postMessage(m)) : null;
const { workerEntry, ...hostOptions } = parsed.data;
const host = new Host({
  ...hostOptions,
  label: 'rlm-studio desktop',
  workerLauncher: broker ?? forkLauncher(workerEntry),
  ...(keys ? { keyStore: keys } : {}),
});
const conns = new Map<number, HostConnection>();
const post = (m: unknown): void => {
  if (parentPort) parentPort.postMessage(m);
  else process.send?.(m);
};

function onMessage(raw: unknown): void {
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
}

if (parentPort) {
  parentPort.on('message', (e) => {
    if (broker?.handle(e.data, e.ports) || keys?.handle(e.data)) return;
    onMessage(e.data);
  });
} else {
  process.on('message', onMessage);
  // The parent is gone: stop the workers and leave.
  process.on('disconnect', () => void host.close().finally(() => process.exit(0)));
}
post({ ready: true });
