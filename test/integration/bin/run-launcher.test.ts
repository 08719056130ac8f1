// How bin/rlm-studio starts `run`: on Node's startup snapshot, its REPLs in a sandbox process,
// unless the context file is large enough that reading it in two processes would cost more
// (RLM_STUDIO_SNAPSHOT_MAX_CONTEXT, 128 MiB by default, lowered here), or the REPL is Python's. A tools module, imported
// by the `run` process itself, writes down the flags that process was started with.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
const dir = mkdtempSync(join(tmpdir(), 'rlm-run-launcher-'));
const tools = join(dir, 'tools.mjs');
const flagsFile = join(dir, 'flags.json');

beforeAll(async () => {
  mock = await startMockProcess();
  writeFileSync(
    tools,
    [
      "import { writeFileSync } from 'node:fs';",
      `writeFileSync(${JSON.stringify(flagsFile)}, JSON.stringify(process.execArgv));`,
      'export const unit = "km";',
    ].join('\n'),
  );
});

afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

async function flagsOfRun(contextBytes: number, contextArg: (path: string) => string[], extra: string[] = []): Promise<string[]> {
  const context = join(dir, `context-${contextBytes}.txt`);
  writeFileSync(context, 'The secret is 42.\n'.repeat(Math.ceil(contextBytes / 18)).slice(0, contextBytes));
  rmSync(flagsFile, { force: true });
  const r = await runCli(
    [
      'run',
      ...contextArg(context),
      '--query',
      'What is the secret?',
      '--base-url',
      mock.url,
      '--model',
      'mock-root',
      '--tools',
      tools,
      '--json',
      ...extra,
    ],
    { RLM_STUDIO_SNAPSHOT_MAX_CONTEXT: '2000' },
  );
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ stopReason: 'answered' });
  return JSON.parse(readFileSync(flagsFile, 'utf8')) as string[];
}

describe('bin/rlm-studio run', () => {
  it('starts on the snapshot with a small context, its REPLs in the sandbox process', async () => {
    expect(await flagsOfRun(500, (p) => ['--context', p])).not.toContain('--no-node-snapshot');
    expect(await flagsOfRun(500, (p) => [`--context=${p}`])).not.toContain('--no-node-snapshot');
  });

  it('starts without the snapshot, its REPL in-process, with the Python REPL', async () => {
    expect(await flagsOfRun(500, (p) => ['--context', p], ['--repl', 'python'])).toContain('--no-node-snapshot');
    expect(await flagsOfRun(500, (p) => ['--context', p], ['--repl=python'])).toContain('--no-node-snapshot');
    expect(await flagsOfRun(500, (p) => ['--context', p], ['--repl', 'javascript'])).not.toContain('--no-node-snapshot');
  }, 120_000);

  it('starts without the snapshot, its REPLs in-process, with a context at or over the limit', async () => {
    expect(await flagsOfRun(2000, (p) => ['--context', p])).toContain('--no-node-snapshot');
    expect(await flagsOfRun(5000, (p) => [`--context=${p}`])).toContain('--no-node-snapshot');
  });
});
