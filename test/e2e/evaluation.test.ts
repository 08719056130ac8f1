// Batch evaluation end to end: `eval-gen` a tiny dataset, `eval` it twice against
// `mock-llm` with two configurations (default turns; --max-iterations 2, where BrowseComp's
// five turns cannot finish: deterministic), then open both in the app (Chromium against
// `rlm-studio serve`) and check the task table, the charts and the only-one-solved list.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runCli, startMockProcess, type MockProcess } from '../integration/support/cli.ts';
import { shot, appUnderTest } from './support.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-eval-'));
const full = join(tmp, 'full');
const short = join(tmp, 'short-2it');
const IDS = ['browsecomp-8192-s1', 'oolong-8192-s1', 'sniah-8192-s1'];
let mock: MockProcess;
let page: Page;

async function cli(args: string[]): Promise<string> {
  const r = await runCli(args, {}, 115_000);
  if (r.code !== 0) throw new Error(`rlm-studio ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return r.stderr;
}

/** Two evaluations of one dataset against mock-llm: default turns, and at most 2 iterations. */
async function runEvaluations(): Promise<void> {
  const ds = join(tmp, 'ds.jsonl');
  [mock] = await Promise.all([
    startMockProcess(['--cost-per-mtok', '0.5']),
    cli(['eval-gen', '--kind', 'sniah,oolong,browsecomp', '--sizes', '8192', '-o', ds]),
  ]);
  const common = ['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '--parallel', '3'];
  await Promise.all([cli([...common, '--out', full]), cli([...common, '--out', short, '--max-iterations', '2'])]);
}

const app = appUnderTest({
  before: runEvaluations,
  after: async () => {
    await mock?.close();
    rmSync(tmp, { recursive: true, force: true });
  },
  onOpen: (a) => (page = a.page),
});

async function openEvalPath(dir: string): Promise<void> {
  await page.getByTestId('eval-path').fill(dir);
  await page.getByTestId('eval-open').click();
  await page
    .getByTestId('eval-summary')
    .filter({ hasText: dir.split('/').at(-1)! })
    .waitFor();
}

/** expect.poll's default (1 s, for the function too) is short for a page that is also opening sessions on a loaded CI machine. */
const WAIT = { timeout: 30_000 };

const rowIds = async (): Promise<string[]> =>
  (await page.locator('[data-testid^="eval-row-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).map((t) =>
    (t ?? '').slice('eval-row-'.length),
  );

describe('evaluations in the app', () => {
  it('the two runs differ deterministically on disk', () => {
    const solved = (dir: string): string[] =>
      readFileSync(join(dir, 'results.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; correct: boolean })
        .filter((r) => r.correct)
        .map((r) => r.id)
        .sort();
    expect(solved(full)).toEqual(IDS);
    expect(solved(short)).toEqual(['oolong-8192-s1', 'sniah-8192-s1']);
  });

  it('opens an evaluation: table, accuracy, charts; a row opens its session', async () => {
    await page.getByTestId('tab-eval').click();
    await openEvalPath(full);
    await expect.poll(rowIds, WAIT).toEqual(IDS);
    await expect
      .poll(() => page.getByTestId('eval-summary').innerText(), WAIT)
      .toMatch(/3 of 3 tasks finished; accuracy 100\.0% \(3 fully correct\)/);
    expect(await page.getByTestId('eval-acc-browsecomp@8192').innerText()).toMatch(/8192\s+1\s+1\s+100\.0%/);
    for (const id of ['eval-chart-cost', 'eval-chart-time']) {
      expect(await page.getByTestId(id).locator('rect.bar-a').count()).toBeGreaterThan(0);
      expect(await page.getByTestId(id).innerText()).toMatch(/n=3 · p25 .* p95/);
    }
    // Sort by cost, most expensive first: browsecomp makes the most calls.
    await page.getByTestId('eval-sort-cost').click();
    await expect.poll(async () => (await rowIds())[0], WAIT).toBe('browsecomp-8192-s1');
    await shot(page, 'eval-view');
    await page.getByTestId('eval-row-sniah-8192-s1').click();
    const tree = page.getByRole('tree', { name: 'Recursion tree' });
    await tree.waitFor();
    await expect.poll(async () => tree.locator('[role="treeitem"][data-run-id]').count(), WAIT).toBeGreaterThan(0);
    expect(await page.getByTestId('session-select').locator('option:checked').innerText()).toBe('full/sniah-8192-s1');
  });

  it('maps each task’s context coverage, and a row opens the task with its map drawn', async () => {
    await page.getByTestId('tab-eval').click();
    await openEvalPath(full);
    await page.getByTestId('eval-coverage-open').click();
    const rows = page.locator('[data-testid^="eval-coverage-row-"]');
    await expect.poll(() => rows.count(), WAIT).toBe(3);
    for (const id of IDS)
      expect(await page.getByTestId(`eval-coverage-row-${id}`).innerText()).toMatch(/✓\s+[\d,]+\s+[\d.]+%\s+[\d.]+%\s+[\d.]+%\s+[\d.]+%/);
    expect(await page.getByTestId('eval-coverage-median').innerText()).toMatch(/correct [\d.]+% \(3 tasks\), incorrect none/);
    // A bar per task, the correct ones beside the others.
    const bars = page.getByTestId('eval-coverage-correct').getByTestId('eval-coverage-bar');
    expect(await bars.count()).toBe(3);
    expect(await bars.first().getByRole('img').getAttribute('aria-label')).toMatch(/% of its context seen by a model$/);
    expect(await page.getByTestId('eval-coverage-incorrect').innerText()).toMatch(/Incorrect \(0\)\s+none/);
    await shot(page, 'eval-coverage');
    await page.getByTestId('eval-coverage-row-sniah-8192-s1').getByRole('button').click();
    // The session's own coverage panel maps it from the task's context, named after the task.
    await expect.poll(() => page.getByText('Context: sniah-8192-s1.txt').count(), WAIT).toBeGreaterThan(0);
  });

  it('compares two configurations: side by side and the task only one solved', async () => {
    await page.getByTestId('tab-eval').click();
    await openEvalPath(short);
    const onlyA = page.getByTestId('eval-only-a');
    await expect.poll(() => onlyA.getByRole('button').allInnerTexts(), WAIT).toEqual(['browsecomp-8192-s1']);
    expect(await page.getByTestId('eval-only-b').innerText()).toBe('none');
    expect(await page.getByTestId('eval-compare-counts').innerText()).toMatch(
      /Of 3 tasks in both: 2 solved by both, 0 by neither, 1 only by A, 0 only by B\./,
    );
    const acc = await page.getByTestId('eval-compare-table').locator('tr', { hasText: 'accuracy (mean score)' }).innerText();
    expect(acc).toMatch(/100\.0%\s+66\.7%/);
    await shot(page, 'eval-compare');
    // Paired by task: A solved one task B did not (exact McNemar 1 vs 0).
    const paired = page.getByTestId('paired-accuracy');
    expect(await paired.innerText()).toMatch(/accuracy\s+100\.0%\s+66\.7%\s+\+33\.3%.*exact McNemar 1 vs 0, p 1\.0000/s);
    await page.getByTestId('paired-table').scrollIntoViewIfNeeded();
    await shot(page, 'eval-paired');
    // The listed task opens from A, the evaluation that solved it.
    await onlyA.getByRole('button', { name: 'browsecomp-8192-s1' }).click();
    await page.getByRole('tree', { name: 'Recursion tree' }).waitFor();
    expect(await page.getByTestId('session-select').locator('option:checked').innerText()).toBe('full/browsecomp-8192-s1');
    expect(app.browser.errors).toEqual([]);
    expect(app.browser.foreign).toEqual([]);
  });
});
