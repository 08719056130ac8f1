// On a fresh clone `serve`, `view` and `start` build the UI themselves, as `demo` does: here into
// a temporary folder (RLM_STUDIO_UI_DIR), missing at first, then stale.
import { existsSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { repoRoot, startCli } from '../support/cli.ts';

const STALE_PAGE = '<!doctype html><p>an old build</p>';

/** Starts the command, waits for the address it prints, fetches the page and stops it. */
async function pageServedBy(args: string[], uiDir: string): Promise<{ page: string; stderr: string }> {
  const runs = mkdtempSync(join(tmpdir(), 'rlm-serve-ui-runs-'));
  // The app's build, whatever the suite's browser tests set for their own.
  const cli = startCli([...args, '--port', '0', '--runs-dir', runs], { RLM_STUDIO_UI_DIR: uiDir, RLM_STUDIO_TEST_HANDLES: '' });
  try {
    const url = await new Promise<string>((res, rej) => {
      createInterface({ input: cli.child.stdout! }).on('line', (l) => {
        const m = /(http:\/\/\S+)/.exec(l);
        if (m?.[1]) res(m[1]);
      });
      cli.done.then((r) => rej(new Error(`${args[0]} exited (${r.code}): ${r.stderr}`)), rej);
    });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const page = await res.text();
    cli.child.kill('SIGTERM');
    const { stderr } = await cli.done;
    return { page, stderr };
  } finally {
    cli.child.kill('SIGTERM');
    await cli.done;
  }
}

describe('serve and view build the UI when it is missing or stale', () => {
  it('serve builds a missing UI and serves it; two started together build it once', async () => {
    const uiDir = join(mkdtempSync(join(tmpdir(), 'rlm-serve-ui-')), 'renderer');
    const both = await Promise.all([pageServedBy(['serve'], uiDir), pageServedBy(['serve'], uiDir)]);
    expect(both.filter((r) => r.stderr.includes('building the UI'))).toHaveLength(1);
    for (const { page, stderr } of both) {
      expect(stderr).not.toContain("UI isn't built");
      expect(page).toMatch(/<div id="root"/);
      expect(readFileSync(join(uiDir, 'index.html'), 'utf8')).toBe(page);
    }
    expect(existsSync(`${uiDir}.lock`)).toBe(false);
    // The tests' console handles are not in the app's build.
    const scripts = readdirSync(join(uiDir, 'assets')).filter((f) => f.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const f of scripts) expect(readFileSync(join(uiDir, 'assets', f), 'utf8')).not.toContain('__rlmStudio');
  });

  it('view rebuilds a UI older than its sources', async () => {
    const uiDir = mkdtempSync(join(tmpdir(), 'rlm-serve-ui-'));
    writeFileSync(join(uiDir, 'index.html'), STALE_PAGE);
    utimesSync(join(uiDir, 'index.html'), 1_000, 1_000);
    const log = join(repoRoot, 'test/integration/rerun/fixtures/js-aggregate.rlm.jsonl');
    const { page, stderr } = await pageServedBy(['view', log], uiDir);
    expect(stderr).toContain('building the UI');
    expect(page).not.toContain('an old build');
    expect(page).toMatch(/<div id="root"/);
  });
});
