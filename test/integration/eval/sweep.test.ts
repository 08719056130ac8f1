// A 2 × 2 sweep of three S-NIAH tasks against mock-llm over HTTP, through the real command:
// interrupted (SIGINT) while its second configuration runs, then run again with the same
// command, which must finish it without running any finished session again. Then its summary
// (--json) and the paired comparison of two configurations.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-sweep-'));
const ds = join(tmp, 'ds.jsonl');
const grid = join(tmp, 'grid.json');
const out = join(tmp, 'sweep');
let mock: MockProcess;

beforeAll(async () => {
  // Latency makes each session last long enough to be caught running.
  [mock] = await Promise.all([
    startMockProcess(['--cost-per-mtok', '0.5', '--latency-ms', '120']),
    runCli(['eval-gen', '--kind', 'sniah', '--sizes', '8192', '--count', '3', '-o', ds]),
  ]);
  writeFileSync(grid, JSON.stringify({ axes: { 'max-iterations': [4, 6], 'max-depth': [1, 2] }, fixed: { parallel: 1 } }));
}, 60_000);

afterAll(async () => {
  await mock?.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface Manifest {
  configs: { id: string; name: string; dir: string }[];
}

const lines = (dir: string): string[] => {
  try {
    return readFileSync(join(out, dir, 'results.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  } catch {
    return [];
  }
};

/** Every log of a configuration with its modification time: a session run again would rename or rewrite one. */
function logTimes(dir: string): Map<string, number> {
  const logs = join(out, dir, 'logs');
  try {
    return new Map(readdirSync(logs).map((f) => [f, statSync(join(logs, f)).mtimeMs]));
  } catch {
    return new Map();
  }
}

describe('rlm-studio sweep', () => {
  it('runs every configuration, resumes after an interrupt without running a finished session again, and summarises', async () => {
    const args = ['sweep', ds, '--grid', grid, '-o', out, '--base-url', mock.url, '--model', 'mock-root', '--no-progress'];
    const first = startCli(args);
    const manifestPath = join(out, 'sweep.json');
    // Interrupt once the second configuration has a finished session.
    const deadline = Date.now() + 90_000;
    let manifest: Manifest | null = null;
    while (Date.now() < deadline) {
      try {
        manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
        if (lines(manifest.configs[1]!.dir).length >= 1) break;
      } catch {
        // not written yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(manifest).not.toBeNull();
    first.child.kill('SIGINT');
    const r1 = await first.done;
    expect(r1.code, r1.stderr).toBe(130);
    expect(r1.stderr).toMatch(/interrupted: run the same command again to resume/);
    const configs = manifest!.configs;
    expect(configs).toHaveLength(4);
    const before = configs.map((c) => lines(c.dir));
    const logsBefore = configs.map((c) => logTimes(c.dir));
    expect(before[0]).toHaveLength(3);
    expect(before[1]!.length).toBeGreaterThanOrEqual(1);
    // The last two never started.
    expect(before[2]).toHaveLength(0);
    expect(before[3]).toHaveLength(0);
    const summary1 = JSON.parse(readFileSync(join(out, 'sweep-summary.json'), 'utf8')) as { configs: { state: string }[] };
    expect(summary1.configs.map((c) => c.state).slice(2)).toEqual(['pending', 'pending']);

    const r2 = await runCli([...args, '--json'], {}, 120_000);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stderr).toMatch(/3 already finished/);
    for (const [i, c] of configs.entries()) {
      const after = lines(c.dir);
      // Each task once, and the lines written before the interrupt are still the first ones.
      expect(after).toHaveLength(3);
      expect(after.slice(0, before[i]!.length)).toEqual(before[i]);
      expect(new Set(after.map((l) => (JSON.parse(l) as { id: string }).id)).size).toBe(3);
      // Finished sessions' logs are untouched (a session run again would have renamed or rewritten its log).
      const logsAfter = logTimes(c.dir);
      for (const l of before[i]!) {
        const file = (JSON.parse(l) as { logFile: string }).logFile.split('/').at(-1)!;
        expect(logsAfter.get(file), `${c.name}: ${file}`).toBe(logsBefore[i]!.get(file));
      }
    }

    const json = JSON.parse(r2.stdout) as {
      configs: { id: string; state: string; sessions: number; accuracy: number; costPerTask: number; pareto: boolean }[];
      pareto: string[];
      effects: { axis: string; values: { value: number; configs: number }[] }[];
    };
    expect(json.configs.map((c) => [c.state, c.sessions])).toEqual(Array(4).fill(['finished', 3]));
    for (const c of json.configs) {
      expect(c.accuracy).toBe(1);
      expect(c.costPerTask).toBeGreaterThan(0);
    }
    expect(json.pareto.length).toBeGreaterThanOrEqual(1);
    expect(
      json.configs
        .filter((c) => c.pareto)
        .map((c) => c.id)
        .sort(),
    ).toEqual([...json.pareto].sort());
    expect(json.effects.map((e) => [e.axis, e.values.map((v) => [v.value, v.configs])])).toEqual([
      [
        'max-iterations',
        [
          [4, 2],
          [6, 2],
        ],
      ],
      [
        'max-depth',
        [
          [1, 2],
          [2, 2],
        ],
      ],
    ]);
    // The file holds what --json printed.
    expect(JSON.parse(readFileSync(join(out, 'sweep-summary.json'), 'utf8'))).toEqual(json);

    const cmp = await runCli(['sweep-summary', out, '--json', '--compare', '1', configs[3]!.name]);
    expect(cmp.code, cmp.stderr).toBe(0);
    const c = (
      JSON.parse(cmp.stdout) as { compare: { a: string; b: string; paired: { tasks: { paired: number }; metrics: { metric: string }[] } } }
    ).compare;
    expect([c.a, c.b]).toEqual([configs[0]!.id, configs[3]!.id]);
    expect(c.paired.tasks.paired).toBe(3);
    expect(c.paired.metrics.map((m) => m.metric)).toEqual(['accuracy', 'cost', 'tokens', 'time', 'calls']);

    const bad = await runCli(['sweep-summary', out, '--compare', '1', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--compare: no configuration "nope"/);
  }, 240_000);

  it('names a bad axis value before anything runs', async () => {
    const badGrid = join(tmp, 'bad.json');
    writeFileSync(badGrid, JSON.stringify({ axes: { 'max-depth': [1, 'deep'] } }));
    const r = await runCli(['sweep', ds, '--grid', badGrid, '-o', join(tmp, 'bad'), '--base-url', mock.url, '--model', 'm']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/configuration 2 \(max-depth=deep\): option '--max-depth <n>' argument 'deep' is invalid/);
    expect(() => statSync(join(tmp, 'bad'))).toThrow();
  });
});
