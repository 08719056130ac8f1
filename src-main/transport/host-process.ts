// Entry of a host running in its own process (the desktop shell starts it, so a crash in
// the host cannot take the window down). Many client connections are multiplexed over the
// one IPC channel with the parent: { t: 'open'|'msg'|'close', c } in, { c, m } out.
import { z } from 'zod';
import { Host } from '../host/session-manager.ts';
import type { HostConnection } from './connection.ts';

const Options = z.strictObject({ runsDir: z.string(), settingsDir: z.string(), demoLatencyMs: z.number().int().nonnegative().optional() });
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
const host = new Host({ ...parsed.data, label: 'rlm-studio desktop' });
const conns = new Map<number, HostConnection>();

// Under Electron's utilityProcess the channel is `process.parentPort`; under fork() it is
// process.send / 'message'.
interface ParentPortLike {
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}
const parentPort = (process as unknown as { parentPort?: ParentPortLike }).parentPort;
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
      conns.set(c, host.connect((msg) => post({ c, m: msg })));
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

if (parentPort) parentPort.on('message', (e) => onMessage(e.data));
else {
  process.on('message', onMessage);
  // The parent is gone: stop the workers and leave.
  process.on('disconnect', () => void host.close().finally(() => process.exit(0)));
}
post({ ready: true });
