// bin/rlm-studio runs the bundled command line (dist/cli, src-main/cli/cli-build.ts), built
// when missing or older than a source, so a fresh clone and an edited checkout both run the
// current code. Runs the real script on a copy of the sources (node_modules and .runtime
// linked), never on this checkout's dist/.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.ts';

let clone = '';

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(join(clone, 'bin/rlm-studio'), args, { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  clone = mkdtempSync(join(tmpdir(), 'rlm-cli-bundle-'));
  for (const p of ['bin', 'src-main', 'src-shared', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json'])
    cpSync(join(repoRoot, p), join(clone, p), { recursive: true });
  for (const p of ['node_modules', '.runtime']) symlinkSync(join(repoRoot, p), join(clone, p));
});
afterAll(() => rmSync(clone, { recursive: true, force: true }));

describe('bin/rlm-studio and the bundled command line', () => {
  it('a fresh clone bundles the CLI on first use, then runs the bundle without building again', () => {
    const first = cli('stats', '--help');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/bundling the command line into .*dist\/cli/);
    expect(first.stdout).toMatch(/Usage: rlm-studio stats/);
    expect(existsSync(join(clone, 'dist/cli/main.mjs'))).toBe(true);
    expect(existsSync(join(clone, 'dist/cli/worker.mjs'))).toBe(true);
    expect(existsSync(join(clone, 'dist/cli/sandbox-child.mjs'))).toBe(true);
    expect(existsSync(join(clone, 'dist/cli/runtime.py'))).toBe(true);

    const second = cli('stats', '--help');
    expect(second.status).toBe(0);
    expect(second.stderr).toBe('');
  });

  it('the bundle imports only Node built-ins, its own chunks and the packages left outside it', () => {
    const outside = new Set(['isolated-vm', 'pyodide', 'rolldown', 'vite', 'electron']);
    for (const f of readdirSync(join(clone, 'dist/cli')).filter((f) => f.endsWith('.mjs'))) {
      // Block comments out first: a package's JSDoc types (`import('../src/types.js')`) are never loaded.
      const code = readFileSync(join(clone, 'dist/cli', f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const m of code.matchAll(/^\s*import\s+(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)) {
        const spec = m[1] ?? m[2]!;
        const ok = spec.startsWith('./') || spec.startsWith('node:') || builtinModules.includes(spec) || outside.has(spec.split('/')[0]!);
        expect(ok, `${f} imports ${spec}`).toBe(true);
      }
    }
  });

  it('the bundle takes Node built-ins through process.getBuiltinModule, never an ES import (cli/builtin-imports.ts)', () => {
    // An ES import of node:fs alone would load its streams, fs/promises and readline at start-up.
    const dir = join(clone, 'dist/cli');
    let taken = 0;
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.mjs'))) {
      const code = readFileSync(join(dir, f), 'utf8');
      for (const m of code.matchAll(/^import\s+(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/gm)) {
        const spec = m[1]!;
        expect(spec.startsWith('node:') || builtinModules.includes(spec), `${f} imports the built-in ${spec}`).toBe(false);
      }
      taken += [...code.matchAll(/process\.getBuiltinModule\("node:fs"\)/g)].length;
    }
    expect(taken).toBeGreaterThan(0);
  });

  it('`run` loads the sandbox and zod only after its first request or when an option needs them', () => {
    // What Node evaluates before `run` can send its first request: main.mjs, the run command's
    // chunk and their static imports. isolated-vm and the code parser load in the sandbox
    // process (engine/sandbox-process; `run` itself starts on Node's snapshot), or, in a process
    // that may host isolates, while the first call is in flight (engine/conversation.ts imports
    // the REPL when it sets it up); zod comes with reading logs (--example) or the host, never
    // with a plain run.
    const dir = join(clone, 'dist/cli');
    const staticImports = (file: string): string[] =>
      [...readFileSync(join(dir, file), 'utf8').matchAll(/^(?:import|export)\s+(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/gm)].map(
        (m) => m[1]!,
      );
    const runChunk = /\brun: async \(\) => \[\(await import\("\.\/([^"]+)"\)\)/.exec(readFileSync(join(dir, 'main.mjs'), 'utf8'))?.[1];
    expect(runChunk, 'main.mjs imports the run command lazily').toBeDefined();
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of staticImports(file)) {
        if (spec.startsWith('./')) visit(spec.slice(2));
        else if (!spec.startsWith('node:')) packages.add(spec);
      }
    };
    visit('main.mjs');
    visit(runChunk!);
    expect(seen.size).toBeGreaterThan(3);
    expect([...packages]).not.toContain('isolated-vm');
    for (const f of seen) expect(readFileSync(join(dir, f), 'utf8'), `${f} holds zod`).not.toMatch(/node_modules\/zod\//);
  });

  it('an edited source makes the bundle stale: the next command rebuilds it and runs the edit', () => {
    const stamp = join(clone, 'dist/cli/.built');
    const before = statSync(stamp).mtimeMs;
    // An edit (a newer mtime than the build), visible in the CLI's output.
    const main = join(clone, 'src-main/cli/main.ts');
    writeFileSync(
      main,
      readFileSync(main, 'utf8').replace("'Run, record and inspect Recursive Language Models.'", "'Edited description.'"),
    );
    const later = new Date(before + 5_000);
    utimesSync(main, later, later);
    const r = cli('--help');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/bundling the command line/);
    expect(r.stdout).toContain('Edited description.');
    expect(statSync(stamp).mtimeMs).toBeGreaterThan(before);
  });

  it('RLM_STUDIO_SOURCES=1 runs the TypeScript sources as they are, without the bundle', () => {
    rmSync(join(clone, 'dist/cli'), { recursive: true, force: true });
    const r = spawnSync(join(clone, 'bin/rlm-studio'), ['--help'], { encoding: 'utf8', env: { ...process.env, RLM_STUDIO_SOURCES: '1' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Usage: rlm-studio/);
    expect(existsSync(join(clone, 'dist/cli'))).toBe(false);
  });
});
