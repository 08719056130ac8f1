// A sweep in the app: `sweep` runs a 2 × 2 grid (max-iterations × max-depth) of an S-NIAH and
// a BrowseComp task against mock-llm (BrowseComp's five turns do not fit in two iterations:
// deterministic accuracies of 50% and 100%), then the Sweep tab opens the folder: the frontier
// has a point per configuration with the Pareto front filled, the tables hold the figures of
// `sweep-summary --json`, and picking two configurations shows their paired comparison with
// the numbers of `sweep-summary --compare A B --json`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runCli, startMockProcess, type MockProcess } from '../integration/support/cli.ts';
import { appUnderTest, shot } from './support.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-sweep-'));
const out = join(tmp, 'sweep');
let mock: MockProcess;
let page: Page;

interface Figures {
  id: string;
  name: string;
  accuracy: number;
  costPerTask: number;
  pareto: boolean;
  settings: Record<string, number>;
}
interface SummaryJson {
  configs: Figures[];
  pareto: string[];
  effects: { axis: string; values: { value: number; accuracy: number }[] }[];
}
let summary: SummaryJson;

async function cli(args: string[]): Promise<string> {
  const r = await runCli(args, {}, 170_000);
  if (r.code !== 0) throw new Error(`rlm-studio ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}

async function runSweep(): Promise<void> {
  const ds = join(tmp, 'ds.jsonl');
  const grid = join(tmp, 'grid.json');
  writeFileSync(grid, JSON.stringify({ axes: { 'max-iterations': [2, 6], 'max-depth': [1, 2] }, fixed: { parallel: 2 } }));
  [mock] = await Promise.all([
    startMockProcess(['--cost-per-mtok', '0.5']),
    cli(['eval-gen', '--kind', 'sniah,browsecomp', '--sizes', '8192', '-o', ds]),
  ]);
  summary = JSON.parse(
    await cli(['sweep', ds, '--grid', grid, '-o', out, '--base-url', mock.url, '--model', 'mock-root', '--no-progress', '--json']),
  ) as SummaryJson;
}

appUnderTest({
  before: runSweep,
  after: async () => {
    await mock?.close();
    rmSync(tmp, { recursive: true, force: true });
  },
  onOpen: (a) => (page = a.page),
});

const WAIT = { timeout: 30_000 };
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

describe('a sweep in the app', () => {
  it('the sweep measured what the grid sets apart', () => {
    expect(summary.configs).toHaveLength(4);
    for (const c of summary.configs) expect(c.accuracy).toBe(c.settings['max-iterations'] === 2 ? 0.5 : 1);
    expect(summary.pareto.length).toBeGreaterThanOrEqual(1);
  });

  it('draws the frontier, the configurations and the per-axis effects', async () => {
    await page.getByTestId('tab-sweep').click();
    await page.getByTestId('sweep-path').fill(out);
    await page.getByTestId('sweep-open').click();
    await page.getByTestId('sweep-summary').filter({ hasText: '4 finished' }).waitFor(WAIT);
    const frontier = page.getByTestId('sweep-frontier');
    await expect.poll(() => frontier.locator('g.sweep-point').count(), WAIT).toBe(4);
    // Exactly the Pareto front of --json is filled.
    const filled = await frontier.locator('g.sweep-point.pareto').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(filled.sort()).toEqual(summary.pareto.map((id) => `frontier-point-${id}`).sort());
    for (const [i, c] of summary.configs.entries()) {
      const point = frontier.getByTestId(`frontier-point-${c.id}`);
      expect(await point.locator('text').textContent()).toBe(`#${i + 1}`);
      expect(await point.locator('title').textContent()).toContain(`${pct(c.accuracy)}`);
      const row = await page.getByTestId(`sweep-config-${c.id}`).innerText();
      expect(row).toContain(c.name);
      expect(row).toContain(pct(c.accuracy));
      expect(row.includes('◆')).toBe(c.pareto);
    }
    // Points higher on the plot are more accurate.
    const y = async (c: Figures): Promise<number> =>
      Number(/,([\d.]+)\)/.exec((await frontier.getByTestId(`frontier-point-${c.id}`).getAttribute('transform')) ?? '')?.[1]);
    const lo = summary.configs.find((c) => c.accuracy === 0.5)!;
    const hi = summary.configs.find((c) => c.accuracy === 1)!;
    expect(await y(lo)).toBeGreaterThan(await y(hi));
    for (const e of summary.effects)
      for (const v of e.values) expect(await page.getByTestId(`sweep-effect-${e.axis}-${v.value}`).innerText()).toContain(pct(v.accuracy));
    await shot(page, 'sweep-view');
  });

  it('compares two configurations as sweep-summary --compare does', async () => {
    const a = summary.configs.find((c) => c.settings['max-iterations'] === 6 && c.settings['max-depth'] === 1)!;
    const b = summary.configs.find((c) => c.settings['max-iterations'] === 2 && c.settings['max-depth'] === 1)!;
    await page.getByTestId('sweep-compare-a').selectOption(a.id);
    await page.getByTestId(`sweep-pick-b-${b.id}`).click();
    expect(await page.getByTestId('sweep-compare-b').inputValue()).toBe(b.id);
    const cmp = JSON.parse(await cli(['sweep-summary', out, '--json', '--compare', a.id, b.id])) as {
      compare: { paired: { tasks: { paired: number }; metrics: { metric: string; meanA: number; meanB: number; diff: number }[] } };
    };
    const acc = cmp.compare.paired.metrics.find((m) => m.metric === 'accuracy')!;
    expect([acc.meanA, acc.meanB, acc.diff]).toEqual([1, 0.5, 0.5]);
    const row = page.getByTestId('sweep-compare').getByTestId('paired-accuracy');
    await expect.poll(() => row.innerText(), WAIT).toMatch(/100\.0%\s+50\.0%\s+\+50\.0%/);
    // A row per metric of the CLI's comparison.
    expect(await page.getByTestId('sweep-compare').getByTestId('paired-table').locator('tbody tr').count()).toBe(
      cmp.compare.paired.metrics.length,
    );
    expect(await page.getByTestId('sweep-compare').innerText()).toContain(`--compare ${a.id} ${b.id}`);
    await page.getByTestId('sweep-compare').scrollIntoViewIfNeeded();
    await shot(page, 'sweep-compare');
  });
});
