// The desktop shell: one window showing the built UI, the host in a separate process, and
// the protocol between them over IPC; a session's log and context are read at
// app://rlm-studio/api/log|context as in web mode (../transport/session-files.ts). Kept
// thin: everything else lives in the host and the renderer. Hardened as electron/fiddle
// is: context isolation, a sandboxed renderer without Node, a CSP starting at default-src
// 'none', no navigation, no new windows, no webviews, and IPC from any sender but our own
// page dropped (see ../transport/ipc.ts).
//
// Processes: this main process starts the host in the project's own Node 24 (shipped in the
// packaged app, see ./session-runtime.ts), and the host forks each session worker from that
// same Node with the flags the sandboxes need. No Electron process loads isolated-vm or
// Pyodide: Electron boots its Node processes from a startup snapshot, and isolated-vm needs
// a Node started without one. The `runAsNode` fuse stays off; nothing runs Electron as Node.
//
// This file runs bundled (dist/electron/main.mjs, built by src-main/cli/electron-build.ts),
// next to preload.cjs, host-process.mjs and worker.mjs (the last two unpacked from the asar).
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, net, protocol, safeStorage, type WebContents } from 'electron';
import { defaultSettingsDir } from '../host/profiles.ts';
import { defaultRunsDir } from '../logs/paths.ts';
import { attachIpcMain, type IpcMainEventLike } from '../transport/ipc.ts';
import { RemoteHost } from '../transport/remote-host.ts';
import { sessionFileResponse } from '../transport/session-files.ts';
import { KeychainFile } from './keychain.ts';
import { sessionRuntime, SessionRuntimeError, type SessionRuntime } from './session-runtime.ts';

const SCHEME = 'app';
const ORIGIN = `${SCHEME}://rlm-studio`;
const here = import.meta.dirname;
const rendererDir = resolve(here, '../renderer');
const preloadPath = join(here, 'preload.cjs');

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

  let runtime: SessionRuntime;
  try {
    runtime = sessionRuntime({
      isPackaged: app.isPackaged,
      resourcesPath: process.resourcesPath,
      bundleDir: here,
      appPath: app.getAppPath(),
      env: process.env,
      platform: process.platform,
      arch: process.arch,
    });
  } catch (err) {
    if (!(err instanceof SessionRuntimeError)) throw err;
    dialog.showErrorBox('RLM Studio cannot start', err.message);
    app.exit(1);
    return;
  }

  const settingsDir = defaultSettingsDir();
  // Keys stay encrypted on disk; the host process gets them at start, and later ones
  // (profiles.setKey) by message. Workers get none of them: a worker receives only its own
  // session's key, in its start message.
  const keychain = new KeychainFile(settingsDir, safeStorage);
  const host = new RemoteHost({
    runsDir: defaultRunsDir(),
    settingsDir,
    keys: () => keychain.readAll(),
    execPath: runtime.node,
    entry: runtime.hostEntry,
    workerEntry: runtime.workerEntry,
    setKey: (ref, key) => keychain.set(ref, key),
    // The sessions of a dead host are gone (their logs stay): start the pages afresh.
    onRestart: () => {
      for (const w of BrowserWindow.getAllWindows()) w.webContents.reload();
    },
  });
  attachIpcMain(ipcMain, host, trusted);
  protocol.handle(SCHEME, async (request) => {
    const url = new URL(request.url);
    const headers = { 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' };
    if (url.host !== 'rlm-studio') return new Response('not found', { status: 404 });
    // A session's log and context, answered as `rlm-studio serve` answers them, the host
    // process asked where they are. No token: the scheme is this app's own, and its windows
    // load nothing else and navigate nowhere.
    const api = await sessionFileResponse({ url, method: request.method, range: request.headers.get('range') }, host);
    if (api) {
      for (const [k, v] of Object.entries(headers)) api.headers.set(k, v);
      return api;
    }
    if (!existsSync(join(rendererDir, 'index.html')))
      return new Response(NOT_BUILT, { headers: { ...headers, 'Content-Type': 'text/html' } });
    const file = resolve(rendererDir, `.${decodeURIComponent(url.pathname)}`);
    if (file !== rendererDir && !file.startsWith(rendererDir + sep)) return new Response('forbidden', { status: 403 });
    const res = await net.fetch(pathToFileURL(existsSync(file) ? file : join(rendererDir, 'index.html')).toString());
    const out = new Response(res.body, { status: res.status, headers: res.headers });
    for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
    return out;
  });

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
