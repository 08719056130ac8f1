// The protocol contract, run against every carrier's code path: in-process, WebSocket,
// Electron IPC (through the real bridge and preload code, with a fake ipcMain/ipcRenderer
// pair), and IPC to a host in a separate process (the desktop shell's arrangement).
import { afterAll, describe, expect, it } from 'vitest';
import type { HostMessage } from '../../../src-shared/protocol.ts';
import type { Host } from '../../../src-main/host/host.ts';
import { attachIpcMain, createRendererBridge } from '../../../src-main/transport/ipc.ts';
import { DirectCarrier } from '../../../src-main/transport/node-carriers.ts';
import { RemoteHost } from '../../../src-main/transport/remote-host.ts';
import { startWebServer, type WebServer } from '../../../src-main/transport/ws-server.ts';
import type { HostEndpoint } from '../../../src-main/host/endpoint.ts';
import { FakeIpcMain, FakeWindow } from './fake-ipc.ts';
import { connectInProcess, connectWs, demoStart, makeHost, tempDirs, TestClient, wsUrlOf } from './helpers.ts';

const APP_URL = 'app://rlm-studio/index.html';
const trusted = (windows: Set<number>) => (e: { sender: { id: number }; senderFrame: { url: string } | null }) =>
  windows.has(e.sender.id) && e.senderFrame !== null && e.senderFrame.url.startsWith('app://rlm-studio/');

function connectIpc(endpoint: HostEndpoint): { client: TestClient; window: FakeWindow; main: FakeIpcMain; windows: Set<number> } {
  const main = new FakeIpcMain();
  const window = new FakeWindow(main, APP_URL);
  const windows = new Set([window.id]);
  attachIpcMain(main, endpoint, trusted(windows));
  // What the preload exposes as window.rlmHost:
  const bridge = createRendererBridge(window.ipcRenderer);
  const carrier = new DirectCarrier((m) => bridge.send(m));
  bridge.onMessage((m: HostMessage) => carrier.deliver(m));
  const client = new TestClient(carrier);
  return { client, window, main, windows };
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const carriers: [string, () => Promise<TestClient>][] = [
  [
    'in-process',
    async () => {
      const host = makeHost();
      cleanups.push(() => host.close());
      return connectInProcess(host);
    },
  ],
  [
    'websocket',
    async () => {
      const host = makeHost();
      const web: WebServer = await startWebServer({ endpoint: host, port: 0 });
      cleanups.push(async () => {
        await web.close();
        await host.close();
      });
      return connectWs(wsUrlOf(web.url));
    },
  ],
  [
    'electron ipc (fake ipcMain/ipcRenderer)',
    async () => {
      const host = makeHost();
      cleanups.push(() => host.close());
      return connectIpc(host).client;
    },
  ],
  [
    'electron ipc to a host process',
    async () => {
      const remote = new RemoteHost({ ...tempDirs(), demoLatencyMs: 5 });
      cleanups.push(() => remote.close());
      return connectIpc(remote).client;
    },
  ],
];

describe.each(carriers)('protocol contract over %s', (_name, connect) => {
  let c: TestClient;

  it('greets, and refuses another protocol version', async () => {
    c = await connect();
    expect(await c.call('hello', { protocol: 1 })).toMatchObject({ protocol: 1 });
    await expect(c.call('hello', { protocol: 999 })).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('answers malformed commands with bad_request, naming the problem', async () => {
    await expect(c.call('session.start', { params: { profile: 'demo' } as never })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/params/),
    });
    await expect(c.call('subscribe', { sessionId: 'missing' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('starts a session, pushes status and every event in order, and lists it', async () => {
    const { session } = await c.call('session.start', demoStart('needle'));
    expect(session.status).toBe('starting');
    const sub = await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
    expect(sub.header?.sessionId).toBe(session.sessionId);
    const done = await c.status(session.sessionId, 'finished');
    const events = await c.until(() =>
      (c.events.get(session.sessionId)?.length ?? 0) === done.eventCount ? c.events.get(session.sessionId) : null,
    );
    expect(events[0]?.type).toBe('run.start');
    expect(events.at(-1)?.type).toBe('run.end');
    expect((await c.call('sessions.list')).sessions.map((s) => s.sessionId)).toContain(session.sessionId);
    expect((await c.call('profiles.list')).profiles[0]?.name).toBe('demo');
  });

  it('resubscribes from a sequence number and gets exactly the rest', async () => {
    const [id] = [...c.events.keys()];
    const all = c.events.get(id!)!;
    c.events.delete(id!);
    // The client never moves a followed session backwards (that would repeat events): stop following first.
    await c.call('unsubscribe', { sessionId: id! });
    await c.call('subscribe', { sessionId: id!, fromSeq: 3 });
    const rest = await c.until(() => ((c.events.get(id!)?.length ?? 0) === all.length - 3 ? c.events.get(id!) : null));
    expect(rest).toEqual(all.slice(3));
    await c.call('unsubscribe', { sessionId: id! });
  });
});

describe('electron ipc: senders', () => {
  it('drops messages from windows and frames the shell does not trust, and pushes only after ready', async () => {
    const host: Host = makeHost();
    cleanups.push(() => host.close());
    const { main, windows } = connectIpc(host);
    // A window the shell did not create, and one of ours navigated elsewhere.
    const stranger = new FakeWindow(main, APP_URL);
    const strayed = new FakeWindow(main, 'https://evil.example/');
    windows.add(strayed.id);
    for (const w of [stranger, strayed]) {
      const got: unknown[] = [];
      const bridge = createRendererBridge(w.ipcRenderer);
      bridge.onMessage((m) => got.push(m));
      bridge.send({ id: 1, command: { type: 'hello', protocol: 1 } });
      bridge.send({ id: 2, command: { type: 'session.start', ...demoStart('needle') } });
      await new Promise((r) => setTimeout(r, 100));
      expect(got).toEqual([]);
    }
    expect(await host.execute(null, { type: 'sessions.list' })).toMatchObject({
      sessions: [],
    });
  });
});

describe('host process supervision', () => {
  it('restarts a host process that dies, and the same connection works again', async () => {
    const reasons: string[] = [];
    const remote = new RemoteHost({ ...tempDirs(), demoLatencyMs: 5, onRestart: (r) => reasons.push(r) });
    cleanups.push(() => remote.close());
    const { client } = connectIpc(remote);
    expect(await client.call('hello', { protocol: 1 })).toMatchObject({ protocol: 1 });
    const first = remote.pid!;
    process.kill(first, 'SIGKILL');
    for (let i = 0; i < 200 && reasons.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(reasons[0]).toMatch(/killed \(SIGKILL\)/);
    expect(remote.pid).not.toBe(first);
    expect(await client.call('hello', { protocol: 1 })).toMatchObject({ protocol: 1 });
  });
});
