// One spelling of the flags in --help (-o/--output for what a command writes, --runs-dir for
// where session logs go), and the old ones still working exactly: --out (eval, eval-gen) and
// --log-dir (run, chat, demo, rerun). Both spellings with different values is a usage error.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockProcess, runArgs, runCli, startMockProcess } from '../support/cli.ts';
import { writeFileSync } from 'node:fs';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-flag-aliases-'));
const ctx = join(tmp, 'ctx.txt');
let mock: MockProcess;

beforeAll(async () => {
  writeFileSync(ctx, 'alpha beta\nthe code is 4411\n');
  mock = await startMockProcess();
});
afterAll(async () => {
  await mock?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const gen = (flag: string, out: string) => runCli(['eval-gen', '--kind', 'sniah', '--sizes', '8192', flag, out]);

describe('flag spellings', () => {
  it('eval-gen writes with -o, --output and the old --out', async () => {
    for (const flag of ['-o', '--output', '--out']) {
      const out = join(tmp, `ds${flag.replace(/-/g, '')}.jsonl`);
      const r = await gen(flag, out);
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(out)).toBe(true);
    }
  });

  it('refuses an old and a new spelling with different values, before doing anything', async () => {
    const a = join(tmp, 'a.jsonl');
    const b = join(tmp, 'b.jsonl');
    const r = await runCli(['eval-gen', '--kind', 'sniah', '--sizes', '8192', '--out', a, '--output', b]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out is the old name of --output; give one of them/);
    expect(existsSync(a) || existsSync(b)).toBe(false);
    const run = await runCli([
      ...runArgs({ context: ctx, query: 'q', baseUrl: mock.url, logDir: join(tmp, 'x') }),
      '--runs-dir',
      join(tmp, 'y'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--log-dir is the old name of --runs-dir/);
  });

  it('run and rerun log into --runs-dir, and into the old --log-dir', async () => {
    for (const flag of ['--runs-dir', '--log-dir']) {
      const dir = join(tmp, `run${flag}`);
      const r = await runCli([
        'run',
        '--context',
        ctx,
        '--query',
        'What is the code?',
        '--base-url',
        mock.url,
        '--model',
        'mock-root',
        flag,
        dir,
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const log = (JSON.parse(r.stdout) as { logFile: string }).logFile;
      expect(readdirSync(dir)).toEqual([log.split('/').at(-1)]);
      const again = join(tmp, `rerun${flag}`);
      const rr = await runCli(['rerun', log, '--context', ctx, flag, again, '--json']);
      expect(rr.code, rr.stderr).toBe(0);
      expect(readdirSync(again)).toHaveLength(1);
    }
  });

  it('eval takes -o for its folder; --help shows the one spelling', async () => {
    const ds = join(tmp, 'ds-eval.jsonl');
    expect((await gen('-o', ds)).code).toBe(0);
    const out = join(tmp, 'eval-o');
    const r = await runCli(['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, 'results.jsonl'))).toBe(true);
    for (const [cmd, shown, hidden] of [
      ['eval', '-o, --output <dir>', '--out <'],
      ['eval-gen', '-o, --output <file>', '--out <'],
      ['run', '--runs-dir <dir>', '--log-dir <'],
      ['demo', '--runs-dir <dir>', '--log-dir <'],
      ['rerun', '--runs-dir <dir>', '--log-dir <'],
    ] as const) {
      const help = (await runCli([cmd, '--help'])).stdout;
      expect(help, cmd).toContain(shown);
      expect(help, cmd).not.toContain(hidden);
    }
  });
});
