// The README's first command: `./bin/rlm-studio demo` opens the app on a live demo session.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { connectWs, wsUrlOf } from '../host/helpers.ts';
import { runCli, startCli } from '../support/cli.ts';

describe('rlm-studio demo', () => {
  it('serves the app with a live demo session that reaches its answer', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'rlm-demo-'));
    const demo = startCli(['demo', '--no-open', '--port', '0', '--latency-ms', '20', '--log-dir', runs]);
    try {
      const line = await new Promise<string>((res, rej) => {
        createInterface({ input: demo.child.stdout! }).on('line', (l) => l.includes('http://') && res(l));
        demo.done.then((r) => rej(new Error(`demo exited: ${r.stderr}`)), rej);
      });
      const url = /(http:\/\/\S+)/.exec(line)![1]!;
      const sessionId = decodeURIComponent(new URL(url).hash.replace('#session=', ''));
      expect(sessionId).not.toBe('');
      // The page itself is the built UI.
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<div id="root"|<script/);
      const client = await connectWs(wsUrlOf(url));
      await client.call('subscribe', { sessionId, fromSeq: 0 });
      const end = await client.until(
        () => client.events.get(sessionId)?.find((e) => e.type === 'run.end' && e.depth === 0),
        'the demo root run to end',
        60_000,
      );
      expect(end).toMatchObject({ stopReason: 'answered' });
      expect(client.events.get(sessionId)!.some((e) => e.type === 'run.start' && e.depth === 1)).toBe(true);
      client.closeCarrier();
    } finally {
      demo.child.kill('SIGTERM');
      await demo.done;
    }
  });

  it('still runs in the terminal with --terminal', async () => {
    const runs = mkdtempSync(join(tmpdir(), 'rlm-demo-'));
    const res = await runCli(['demo', '--terminal', '--scenario', 'needle', '--latency-ms', '0', '--log-dir', runs]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/answer \(answered\):\n\d{7}\n/);
    expect(res.stderr).toMatch(/iteration 1/);
  });
});
