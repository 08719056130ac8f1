// A 3 × 3 sweep of 32 tasks (issue 42's goal): 16 S-NIAH and 16 BrowseComp-like tasks of 8K
// tokens, grid max-iterations {2, 3, 6} × max-depth {1, 2, 3}, against mock-llm (its own
// process, a fixed latency per call), through the real command. It is interrupted (SIGINT) once
// about 40% of the sessions have finished, then run again with the same command; reported: the
// wall time of each part, the sessions each part ran, that no finished session ran again (each
// configuration's results.jsonl has each task once, and its lines from before the interrupt
// are still its first), and that the app draws the frontier (Chromium on `rlm-studio serve`,
// screenshot test-results/screenshots/sweep-3x3.png).
//
// node --no-node-snapshot bench/sweep.ts [--latency-ms 40] [--parallel 4] [--write]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openApp, shot, startServe } from '../test/e2e/support.ts';
import { log, root, startMock } from './lib.ts';
import { upsertSection } from './sections.ts';

const cli = join(root, 'bin/rlm-studio');

function run(
  args: string[],
  onStart?: (kill: () => void) => void,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(cli, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  onStart?.(() => child.kill('SIGINT'));
  return new Promise((res, rej) => {
    child.on('error', rej);
    child.on('close', (code) => res({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

interface Manifest {
  configs: { id: string; name: string; dir: string }[];
}

function resultLines(out: string, dir: string): string[] {
  try {
    return readFileSync(join(out, dir, 'results.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'latency-ms': { type: 'string', default: '40' },
      parallel: { type: 'string', default: '4' },
      write: { type: 'boolean', default: false },
    },
  });
  const tmp = mkdtempSync(join(tmpdir(), 'rlm-bench-sweep-'));
  const ds = join(tmp, 'ds.jsonl');
  const grid = join(tmp, 'grid.json');
  const out = join(tmp, 'sweep');
  const mock = await startMock(['--cost-per-mtok', '0.5', '--latency-ms', values['latency-ms']]);
  try {
    const gen = await run(['eval-gen', '--kind', 'sniah,browsecomp', '--sizes', '8192', '--count', '16', '-o', ds]);
    if (gen.code !== 0) throw new Error(gen.stderr);
    writeFileSync(grid, JSON.stringify({ axes: { 'max-iterations': [2, 3, 6], 'max-depth': [1, 2, 3] } }));
    const args = [
      'sweep',
      ds,
      '--grid',
      grid,
      '-o',
      out,
      '--base-url',
      mock.url,
      '--model',
      'mock-root',
      '--parallel',
      values.parallel,
      '--no-progress',
    ];
    const total = 9 * 32;
    // First part: interrupted once ~40% of the sessions have a result.
    let interruptedAt = 0;
    const first = await run(args, (kill) => {
      const timer = setInterval(() => {
        try {
          const m = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as Manifest;
          const done = m.configs.reduce((a, c) => a + resultLines(out, c.dir).length, 0);
          if (done >= 0.4 * total) {
            interruptedAt = done;
            clearInterval(timer);
            kill();
          }
        } catch {
          // not written yet
        }
      }, 100);
    });
    if (first.code !== 130) throw new Error(`the first part exited ${first.code}, not 130:\n${first.stderr}`);
    const manifest = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as Manifest;
    const before = manifest.configs.map((c) => resultLines(out, c.dir));
    const doneBefore = before.reduce((a, l) => a + l.length, 0);
    log(`interrupted after ${(first.ms / 1000).toFixed(1)} s with ${doneBefore} of ${total} sessions finished`);
    const second = await run([...args, '--json']);
    if (second.code !== 0) throw new Error(`the resumed part exited ${second.code}:\n${second.stderr}`);
    let rerun = 0;
    for (const [i, c] of manifest.configs.entries()) {
      const after = resultLines(out, c.dir);
      const ids = after.map((l) => (JSON.parse(l) as { id: string }).id);
      if (after.length !== 32 || new Set(ids).size !== 32)
        throw new Error(`${c.name}: ${after.length} result lines, ${new Set(ids).size} tasks`);
      if (after.slice(0, before[i]!.length).join('\n') !== before[i]!.join('\n')) rerun++;
    }
    const summary = JSON.parse(second.stdout) as {
      configs: { name: string; accuracy: number; costPerTask: number; pareto: boolean; timeMs: number }[];
      pareto: string[];
    };
    log(`resumed in ${(second.ms / 1000).toFixed(1)} s`);

    // The app draws the frontier.
    const served = await startServe();
    const browser = await openApp(served.url);
    let points = 0;
    let front = 0;
    try {
      const page = browser.page;
      await page.getByTestId('tab-sweep').click();
      await page.getByTestId('sweep-path').fill(out);
      await page.getByTestId('sweep-open').click();
      await page.getByTestId('sweep-summary').filter({ hasText: '9 finished' }).waitFor({ timeout: 60_000 });
      points = await page.getByTestId('sweep-frontier').locator('g.sweep-point').count();
      front = await page.getByTestId('sweep-frontier').locator('g.sweep-point.pareto').count();
      await shot(page, 'sweep-3x3');
    } finally {
      await browser.close();
      await served.stop();
    }

    const rows = summary.configs.map(
      (c) =>
        `| ${c.name} | ${(c.accuracy * 100).toFixed(1)}% | $${c.costPerTask.toFixed(6)} | ${(c.timeMs / 1000).toFixed(1)} s | ${c.pareto ? 'yes' : ''} |`,
    );
    const md = [
      '## A 3 × 3 sweep of 32 tasks, interrupted and resumed (`bench/sweep.ts`)',
      '',
      `\`rlm-studio sweep\` of 32 tasks (16 S-NIAH, 16 BrowseComp-like, 8K tokens) over max-iterations {2, 3, 6} × max-depth {1, 2, 3} (9 configurations, ${total} sessions), \`--parallel ${values.parallel}\`, against mock-llm at ${values['latency-ms']} ms per call. Interrupted with SIGINT once ${interruptedAt} sessions had a result: exit 130 after ${(first.ms / 1000).toFixed(1)} s, ${doneBefore} sessions finished. The same command again: exit 0 after ${(second.ms / 1000).toFixed(1)} s, ${total - doneBefore} sessions run; every configuration ends with each of its 32 tasks once, and in ${manifest.configs.length - rerun} of ${manifest.configs.length} configurations the lines from before the interrupt are still the first ones (no finished session ran again). The app's Sweep view drew ${points} points, ${front} of them on the Pareto front (${summary.pareto.length} in --json).`,
      '',
      '| configuration | accuracy | cost per task | session time (sum) | Pareto front |',
      '| --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n');
    process.stdout.write(`${md}\n`);
    if (values.write) {
      const path = join(root, 'bench', 'RESULTS.md');
      writeFileSync(path, upsertSection(readFileSync(path, 'utf8'), 'sweep', md));
      log(`wrote the sweep section of ${path}`);
    }
  } finally {
    await mock.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
