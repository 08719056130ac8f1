// Issue 40, defect 8, the page's side (Chromium against `rlm-studio serve`): the host now
// refuses WebSocket messages over 32 MiB, so what the page used to send whole in one message
// (a log opened through the host, a context picked for a new run) goes by POST /api/upload
// when over 1 Mi characters, and the commands name the file the host stored.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { policySession, writeNativeLog } from '../support/policy-sessions.ts';
import { appUnderTest } from './support.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-uploads-'));
const BIG_LOG = join(tmp, 'big-session.rlm.jsonl');
const WAIT = { timeout: 30_000 };
let page: Page;

const app = appUnderTest({
  before: async () => writeNativeLog(BIG_LOG, policySession({ query: 'q', calls: [3, 2], children: 1, pad: 200_000 }), 'big'),
  after: async () => rmSync(tmp, { recursive: true, force: true }),
  onOpen: (a) => (page = a.page),
});

/** Every file the host stored from uploads, with its size. */
function uploads(): { name: string; bytes: number; path: string }[] {
  const dir = join(app.served.dir, 'runs', 'uploads');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((d) =>
    readdirSync(join(dir, d)).map((name) => ({ name, path: join(dir, d, name), bytes: statSync(join(dir, d, name)).size })),
  );
}

describe('big texts from the page go by upload', () => {
  it('"Open in host…" with a log of several MB: uploaded, opened as the file the host stored', async () => {
    expect(statSync(BIG_LOG).size).toBeGreaterThan(2 * 1024 * 1024);
    await page.getByTestId('open-file-host').setInputFiles(BIG_LOG);
    await expect
      .poll(
        () =>
          page.evaluate(
            `[...window.__rlmStudio.store.getState().sessions.values()].map((e) => e.summary?.logFile ?? '').find((f) => f.endsWith('big-session.rlm.jsonl')) ?? null`,
          ),
        WAIT,
      )
      .toMatch(/\/runs\/uploads\/[\w-]+\/big-session\.rlm\.jsonl$/);
    const [stored] = uploads();
    expect(readFileSync(stored!.path, 'utf8')).toBe(readFileSync(BIG_LOG, 'utf8'));
    await page.getByRole('tree', { name: 'Recursion tree' }).waitFor(WAIT);
  });

  it('a new run on a 2 MB pasted context: uploaded, the run reads it from the stored file', async () => {
    const text = 'the context line\n'.repeat(125_000);
    const id = await page.evaluate<string | null>(
      `window.__rlmStudio.services.start({ profile: 'demo', context: { kind: 'text', text: ${JSON.stringify(text)} }, query: 'How long?', limits: {}, breakpoints: [], startPaused: false })`,
    );
    expect(id).not.toBeNull();
    const stored = uploads().find((u) => u.name === 'context.txt');
    expect(stored?.bytes).toBe(text.length);
    await expect
      .poll(() => page.evaluate(`window.__rlmStudio.store.getState().sessions.get(${JSON.stringify(id)})?.summary?.status`), WAIT)
      .toMatch(/finished|failed/);
    expect(app.browser.errors).toEqual([]);
  });
});
