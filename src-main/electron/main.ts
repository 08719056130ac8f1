// The desktop shell: one window showing the built UI, the host in a separate process, and
// the protocol between them over IPC. Kept thin: everything else lives in the host and the
// renderer. Hardened as electron/fiddle is: context isolation, a sandboxed renderer without
// Node, a CSP starting at default-src 'none', no navigation, no new windows, no webviews,
// and IPC from any sender but our own page dropped (see ../transport/ipc.ts).
//
// Processes: this main process starts the host in a utility process, and, on the host's
// request, each session worker in a utility process of its own, joined to the host by a
// MessageChannel (./worker-broker.ts). Utility processes are the only Node processes a
// packaged app can start: the `runAsNode` fuse is off, so child_process.fork (which needs
// ELECTRON_RUN_AS_NODE) does not work there.
//
// This file runs bundled (dist/electron/main.mjs, built by src-main/cli/electron-build.ts),
// next to preload.cjs, host-process.mjs and worker.mjs.
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, MessageChannelMain, net, protocol, safeStorage, utilityProcess, type WebContents } from 'electron';
import { defaultSettingsDir } from '../host/profiles.ts';
import { defaultRunsDir } from '../logs/paths.ts';
import { attachIpcMain, type IpcMainEventLike, type IpcMainLike } from '../transport/ipc.ts';
import { RemoteHost, type HostChild } from '../transport/remote-host.ts';
import { KeychainFile } from './keychain.ts';
import { WorkerBroker } from './worker-broker.ts';

const SCHEME = 'app';
const ORIGIN = `${SCHEME}://rlm-studio`;
const here = import.meta.dirname;
const rendererDir = resolve(here, '../renderer');
const preloadPath = join(here, 'preload.cjs');
const hostEntry = join(here, 'host-process.mjs');
const workerEntry = join(here, 'worker.mjs');

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>RLM Studio</title><body style="font-family: system-ui; margin: 4em">
<h1>RLM Studio</h1><p>The UI isn't built. Run <code>npm run build:renderer</code>, then restart.</p></body>`;

// Served from a privileged custom scheme rather than file://, so the page has a real origin
// the CSP and the IPC sender check can name.
protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

const windows = new Set<number>();

/** Our page in one of our windows, and nothing else, may talk to the host. */
function trusted(event: IpcMainEventLike): boolean {
  return windows.has(event.sender.id) && event.senderFrame !== null && event.senderFrame.url.startsWith(`${ORIGIN}/`);
}

/**
 * The host in a utility process: outside every window's process, restarted by RemoteHost.
 * Its requests for workers and key storage are answered here (one broker per host process:
 * a dead host's workers are killed with it).
 */
function utilityLaunch(keychain: KeychainFile): (entry: string, env: NodeJS.ProcessEnv) => HostChild {
  return (entry, env) => {
    const child = utilityProcess.fork(entry, [], {
      serviceName: 'RLM Studio host',
      env,
      execArgv: ['--no-node-snapshot'],
      stdio: 'inherit',
    });
    const broker = new WorkerBroker({
      // Workers get this process's environment, not the host's (which holds keychain keys):
      // a worker receives only its own session's key, in its start message.
      forkWorker: () =>
        utilityProcess.fork(workerEntry, [], {
          serviceName: 'RLM Studio session',
          env: { ...process.env },
          execArgv: ['--no-node-snapshot'],
          stdio: ['ignore', 'ignore', 'pipe'],
        }),
      channel: () => new MessageChannelMain(),
      toHost: (m, transfer) => child.postMessage(m, transfer as Electron.MessagePortMain[] | undefined),
      setKey: (ref, key) => keychain.set(ref, key),
    });
    const listeners: ((m: unknown) => void)[] = [];
    child.on('message', (m: unknown) => {
      if (broker.handle(m)) return;
      for (const l of listeners) l(m);
    });
    child.on('exit', () => broker.killAll());
    return {
      get pid() {
        return child.pid;
      },
      send: (m) => child.postMessage(m),
      onMessage: (l) => void listeners.push(l),
      onExit: (l) => void child.on('exit', (code) => l(`exited with code ${code}`)),
      kill: () => void child.kill(),
    };
  };
}

function harden(contents: WebContents): void {
  contents.on('will-navigate', (e) => e.preventDefault());
  contents.on('will-redirect', (e) => e.preventDefault());
  contents.on('will-attach-webview', (e) => e.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'RLM Studio',
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  });
  const id = win.webContents.id;
  windows.add(id);
  win.on('closed', () => windows.delete(id));
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${ORIGIN}/index.html`);
  return win;
}

async function main(): Promise<void> {
  app.enableSandbox();
  app.on('web-contents-created', (_e, contents) => harden(contents));
  await app.whenReady();

  protocol.handle(SCHEME, async (request) => {
    const url = new URL(request.url);
    const headers = { 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' };
    if (url.host !== 'rlm-studio') return new Response('not found', { status: 404 });
    if (!existsSync(join(rendererDir, 'index.html')))
      return new Response(NOT_BUILT, { headers: { ...headers, 'Content-Type': 'text/html' } });
    const file = resolve(rendererDir, `.${decodeURIComponent(url.pathname)}`);
    if (file !== rendererDir && !file.startsWith(rendererDir + sep)) return new Response('forbidden', { status: 403 });
    const res = await net.fetch(pathToFileURL(existsSync(file) ? file : join(rendererDir, 'index.html')).toString());
    const out = new Response(res.body, { status: res.status, headers: res.headers });
    for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
    return out;
  });

  const settingsDir = defaultSettingsDir();
  // Keys stay encrypted on disk; the host process gets them in its environment at start,
  // and later ones (profiles.setKey) by message.
  const keychain = new KeychainFile(settingsDir, safeStorage);
  const host = new RemoteHost({
    runsDir: defaultRunsDir(),
    settingsDir,
    env: () => ({ ...process.env, ...keychain.readAll() }),
    entry: hostEntry,
    workerEntry,
    launch: utilityLaunch(keychain),
    // The sessions of a dead host are gone (their logs stay): start the pages afresh.
    onRestart: () => {
      for (const w of BrowserWindow.getAllWindows()) w.webContents.reload();
    },
  });
  attachIpcMain(ipcMain as unknown as IpcMainLike, host, trusted);

  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', () => void host.close());
}

void main();
