// When the CLI rebuilds the UI: missing, or older than any file it is built from.
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rendererIsStale, rendererSources, writeBuildFlags } from '../../../src-main/cli/renderer-build.ts';

function at(path: string, seconds: number): void {
  utimesSync(path, seconds, seconds);
}

function layout(): { dist: string; srcDir: string; srcFile: string; config: string } {
  const root = mkdtempSync(join(tmpdir(), 'rlm-ui-stale-'));
  const dist = join(root, 'dist');
  const srcDir = join(root, 'src', 'nested');
  mkdirSync(srcDir, { recursive: true });
  const srcFile = join(srcDir, 'App.tsx');
  writeFileSync(srcFile, 'x');
  const config = join(root, 'vite.config.ts');
  writeFileSync(config, 'x');
  at(srcFile, 1_000);
  at(config, 1_000);
  return { dist, srcDir: join(root, 'src'), srcFile, config };
}

describe('rendererIsStale', () => {
  it('is stale when the built folder or its index.html is missing', () => {
    const l = layout();
    expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(true);
    mkdirSync(l.dist);
    expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(true);
  });

  it('is fresh when index.html is newer than every source, stale once any nested source or file is newer', () => {
    const l = layout();
    mkdirSync(l.dist);
    const index = join(l.dist, 'index.html');
    writeFileSync(index, '<html>');
    writeFileSync(join(l.dist, 'bundle-template.html'), '<html>');
    writeBuildFlags(l.dist);
    at(index, 2_000);
    expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(false);
    at(l.srcFile, 3_000);
    expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(true);
    at(l.srcFile, 1_000);
    at(l.config, 3_000);
    expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(true);
  });

  it('ignores a listed source that does not exist', () => {
    const l = layout();
    mkdirSync(l.dist);
    const index = join(l.dist, 'index.html');
    writeFileSync(index, '<html>');
    writeFileSync(join(l.dist, 'bundle-template.html'), '<html>');
    writeBuildFlags(l.dist);
    at(index, 2_000);
    expect(rendererIsStale(l.dist, [l.srcDir, join(l.srcDir, 'absent')])).toBe(false);
  });

  it('is stale when the shareable-HTML template is missing (a UI built before `bundle` existed)', () => {
    const l = layout();
    mkdirSync(l.dist);
    const index = join(l.dist, 'index.html');
    writeFileSync(index, '<html>');
    writeBuildFlags(l.dist);
    at(index, 2_000);
    expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(true);
    writeFileSync(join(l.dist, 'bundle-template.html'), '<html>');
    expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(false);
  });

  it('is stale when built with other switches (the tests’ build, with its console handles, against the app’s)', () => {
    const l = layout();
    mkdirSync(l.dist);
    const index = join(l.dist, 'index.html');
    writeFileSync(index, '<html>');
    writeFileSync(join(l.dist, 'bundle-template.html'), '<html>');
    at(index, 2_000);
    const before = process.env['RLM_STUDIO_TEST_HANDLES'];
    try {
      process.env['RLM_STUDIO_TEST_HANDLES'] = '1';
      writeBuildFlags(l.dist);
      expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(false);
      process.env['RLM_STUDIO_TEST_HANDLES'] = '';
      expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(true);
      writeBuildFlags(l.dist);
      expect(rendererIsStale(l.dist, [l.srcDir, l.config])).toBe(false);
    } finally {
      if (before === undefined) delete process.env['RLM_STUDIO_TEST_HANDLES'];
      else process.env['RLM_STUDIO_TEST_HANDLES'] = before;
    }
  });

  it('watches the renderer, the shared code, the Vite configs, the template build and the lock file', () => {
    expect(rendererSources.map((p) => p.split('/').at(-1))).toEqual([
      'src-renderer',
      'src-shared',
      'vite.config.ts',
      'package-lock.json',
      'vite.bundle.config.ts',
      'bundle-build.ts',
    ]);
  });
});
