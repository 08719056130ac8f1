// `rlm-studio bundle LOG -o FILE.html`, run as a user would: the file carries the log
// byte for byte (gzip + base64 in a data block, so nothing in the log is markup), its CSP
// allows only its own script (by hash) and no network, it never overwrites, and a file that
// is no log is refused without writing anything. The page itself is driven in Chromium by
// test/e2e/bundle.test.ts.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../../../src-main/cli/renderer-build.ts';
import { hostileEvents } from '../../unit/renderer/hostile.ts';
import { runCli } from '../support/cli.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

const PWN = '</script><script>window.__pwned=1</script> <!-- <script> <img src=x onerror="window.__pwned=1">';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-bundle-'));
  // The first bundle would build the UI; done here so no test waits on it.
  ensureRendererBuilt();
}, 600_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The log and name a bundle carries, decoded. */
function carried(html: string): { name: string; log: Buffer } {
  const m =
    /<script id="rlm-log" type="application\/x-rlm-log\+gzip\+base64" data-name="([A-Za-z0-9+/=]*)">([A-Za-z0-9+/=]*)<\/script>/.exec(html);
  if (!m) throw new Error('no log data block');
  return { name: Buffer.from(m[1]!, 'base64').toString('utf8'), log: gunzipSync(Buffer.from(m[2]!, 'base64')) };
}

function cspOf(html: string): string {
  const m = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSP');
  return m[1]!;
}

describe('rlm-studio bundle', () => {
  it('bundles a reference-library log byte for byte, under a CSP that allows its own script and no network', async () => {
    const log = join(REFERENCE_FIXTURES, 'c_recursive.jsonl');
    const out = join(dir, 'recursive.html');
    const r = await runCli(['bundle', log, '-o', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/wrote .*recursive\.html .*rlm-python log/);
    const html = readFileSync(out, 'utf8');
    const { name, log: bytes } = carried(html);
    expect(name).toBe('c_recursive.jsonl');
    expect(bytes.equals(readFileSync(log))).toBe(true);
    const csp = cspOf(html);
    for (const d of ["default-src 'none'", "connect-src 'none'", 'worker-src blob:', "object-src 'none'", "base-uri 'none'"])
      expect(csp).toContain(d);
    // The one script the page runs is the one the CSP names.
    const scripts = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const hash = createHash('sha256').update(scripts[0]!, 'utf8').digest('base64');
    expect(/script-src ([^;]+)/.exec(csp)?.[1]?.trim()).toBe(`'sha256-${hash}'`);
    // Self-contained: nothing loaded from a file or the network.
    expect(/<(?:script|link|img)\b[^>]*\b(?:src|href)="(?!data:)/.exec(html.replace(scripts[0]!, ''))).toBeNull();
  });

  it('bundles a native log with hostile text as inert data', async () => {
    const events = hostileEvents() as unknown as Record<string, unknown>[];
    const reply = events.find((e) => e.type === 'model.reply')!;
    reply.text = `${PWN}\n${String(reply.text)}`;
    const header = { format: 'rlm-studio', version: 1, sessionId: 'hostile', createdAt: '2026-01-01T00:00:00.000Z' };
    const log = join(dir, '"><script>x<\\script>.rlm.jsonl');
    writeFileSync(log, [header, ...events].map((x) => JSON.stringify(x)).join('\n') + '\n');
    const out = join(dir, 'hostile.html');
    const r = await runCli(['bundle', log, '-o', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/native log/);
    const html = readFileSync(out, 'utf8');
    expect(carried(html).log.equals(readFileSync(log))).toBe(true);
    expect(carried(html).name).toBe('"><script>x<\\script>.rlm.jsonl');
    // None of the log's text is in the page as text: only the page's own two script elements close.
    expect(html.includes('__pwned')).toBe(false);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    // The page's own script never opens an HTML comment (which could run past its closing tag).
    expect(html.split('<script type="module">')[1]!.split('</script>')[0]).not.toContain('<!--');
  });

  it('refuses to overwrite a file', async () => {
    const out = join(dir, 'taken.html');
    writeFileSync(out, 'mine');
    const r = await runCli(['bundle', join(REFERENCE_FIXTURES, 'a_needle.jsonl'), '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/already exists; refusing to overwrite/);
    expect(readFileSync(out, 'utf8')).toBe('mine');
  });

  it('refuses a file that is no log, and a missing one, writing nothing', async () => {
    const notLog = join(dir, 'notes.txt');
    writeFileSync(notLog, 'hello\nworld\n');
    const out = join(dir, 'never.html');
    const r = await runCli(['bundle', notLog, '-o', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/notes\.txt: line 1: not a log/);
    expect(existsSync(out)).toBe(false);
    const missing = await runCli(['bundle', join(dir, 'nope.jsonl'), '-o', out]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.jsonl: no such file/);
    expect(existsSync(out)).toBe(false);
  });

  it('needs -o', async () => {
    const r = await runCli(['bundle', join(REFERENCE_FIXTURES, 'a_needle.jsonl')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--output/);
  });
});
