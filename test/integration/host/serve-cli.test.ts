// `rlm-studio view LOG` and static serving, through the real command.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServer, type WebServer } from '../../../src-main/transport/ws-server.ts';
import type { Host } from '../../../src-main/host/host.ts';
import { cliPath, repoRoot } from '../support/cli.ts';
import { connectInProcess, connectWs, demoStart, makeHost, tempDirs, wsUrlOf } from './helpers.ts';

describe('rlm-studio view', () => {
  it('serves a saved log with the session preselected in the URL', async () => {
    const host = makeHost();
    const c = connectInProcess(host);
    const { session } = await c.call('session.start', demoStart('needle'));
    const done = await c.status(session.sessionId, 'finished');
    await host.close();

    const dirs = tempDirs();
    const child = spawn(cliPath, ['view', done.logFile!, '--port', '0', '--runs-dir', dirs.runsDir, '--settings-dir', dirs.settingsDir], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (l) => l.includes('token=') && resolve(l));
        child.once('exit', (code) => reject(new Error(`view exited early (${code})`)));
      });
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)#session=([\w-]+)/.exec(line);
      expect(m).not.toBeNull();
      const ws = await connectWs(wsUrlOf(m![1]!));
      const { sessions } = await ws.call('sessions.list');
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ sessionId: m![2], status: 'saved', readOnly: true, logFile: done.logFile });
      ws.closeCarrier();
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('static files', () => {
  let host: Host;
  let web: WebServer;
  beforeAll(async () => {
    const dir = join(tempDirs().runsDir, 'ui');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>UI</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
    host = makeHost();
    web = await startWebServer({ endpoint: host, port: 0, staticDir: dir });
  });
  afterAll(async () => {
    await web.close();
    await host.close();
  });

  it('serves the built UI, falls back to index.html for app routes, and stays inside its folder', async () => {
    const base = new URL(web.url).origin;
    const index = await fetch(`${base}/`);
    expect(await index.text()).toContain('<title>UI</title>');
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    const js = await fetch(`${base}/assets/app.js`);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${base}/sessions/abc`)).status).toBe(200);
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    const escape = await fetch(`${base}/..%2f..%2fetc%2fpasswd`);
    expect(await escape.text()).not.toContain('root:');
    expect((await fetch(`${base}/%E0%A4%A`)).status).toBe(400);
    expect((await fetch(`${base}/`)).status).toBe(200);
  });
});
