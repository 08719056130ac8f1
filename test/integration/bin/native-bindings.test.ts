// bin/lib/node-env.sh: an install that silently left out an optional native binding (rolldown's,
// npm/cli#4828) is detected and installed again. Runs the real shell functions on temporary
// folders with a stand-in `npm` first on PATH, never on the project's node_modules.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const nodeEnv = resolve(import.meta.dirname, '../../../bin/lib/node-env.sh');
const platform = `${process.platform}-${process.arch}`;

function pkg(modules: string, name: string): void {
  mkdirSync(join(modules, name), { recursive: true });
  writeFileSync(join(modules, name, 'package.json'), JSON.stringify({ name }));
}

function bash(root: string, script: string, path = process.env['PATH'] ?? ''): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', `root="$1"; source "${nodeEnv}"; ${script}`, 'test', root], {
    encoding: 'utf8',
    env: { ...process.env, PATH: path },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('rlm_native_bindings_present', () => {
  it("fails, naming it, when rolldown is installed without this platform's binding", () => {
    const root = mkdtempSync(join(tmpdir(), 'rlm-bindings-'));
    pkg(join(root, 'node_modules'), 'rolldown');
    const r = bash(root, 'rlm_native_bindings_present "$root"');
    expect(r.status).toBe(1);
    expect(r.stdout.trim()).toBe(`@rolldown/binding-${platform}*`);
  });

  it('passes once the binding is there, and when no package needing one is installed', () => {
    const root = mkdtempSync(join(tmpdir(), 'rlm-bindings-'));
    expect(bash(root, 'rlm_native_bindings_present "$root"').status).toBe(0);
    pkg(join(root, 'node_modules'), 'rolldown');
    pkg(join(root, 'node_modules'), `@rolldown/binding-${platform}-gnu`);
    expect(bash(root, 'rlm_native_bindings_present "$root"').status).toBe(0);
    pkg(join(root, 'node_modules'), 'lightningcss');
    expect(bash(root, 'rlm_native_bindings_present "$root"').stdout.trim()).toBe(`lightningcss-${platform}*`);
    pkg(join(root, 'node_modules'), `lightningcss-${platform}-gnu`);
    expect(bash(root, 'rlm_native_bindings_present "$root"').status).toBe(0);
  });
});

/**
 * A project folder whose `npm ci` installs rolldown, with its binding only from the
 * `withBindingFrom`-th call on (never when 0). Returns the root and the file counting calls.
 */
function fakeProject(withBindingFrom: number): { root: string; path: string; calls: string } {
  const root = mkdtempSync(join(tmpdir(), 'rlm-bindings-project-'));
  writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
  const bin = join(root, 'fake-bin');
  mkdirSync(bin);
  const calls = join(root, 'npm-calls');
  writeFileSync(calls, '');
  writeFileSync(
    join(bin, 'npm'),
    `#!/usr/bin/env bash
echo "$*" >>"${calls}"
n=$(wc -l <"${calls}")
m="${join(root, 'node_modules')}"
rm -rf "$m" && mkdir -p "$m/rolldown"
if [ ${withBindingFrom} -gt 0 ] && [ "$n" -ge ${withBindingFrom} ]; then
  mkdir -p "$m/@rolldown/binding-${platform}-gnu" && echo '{}' >"$m/@rolldown/binding-${platform}-gnu/package.json"
fi
`,
  );
  chmodSync(join(bin, 'npm'), 0o755);
  return { root, path: `${bin}:${process.env['PATH'] ?? ''}`, calls };
}

function npmCalls(file: string): number {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
}

describe('rlm_ensure_deps', () => {
  it('installs again when the first install left out the binding, then takes the fast path', () => {
    const p = fakeProject(2);
    const first = bash(p.root, 'rlm_ensure_deps', p.path);
    expect(first.status).toBe(0);
    expect(first.stderr).toContain(`left out the native binding @rolldown/binding-${platform}*`);
    expect(npmCalls(p.calls)).toBe(2);
    expect(bash(p.root, 'rlm_ensure_deps', p.path).status).toBe(0);
    expect(npmCalls(p.calls)).toBe(2);
  });

  it('fails with a clear message when the binding is still missing after two installs', () => {
    const p = fakeProject(0);
    const r = bash(p.root, 'rlm_ensure_deps', p.path);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('still missing after installing twice');
    expect(npmCalls(p.calls)).toBe(2);
  });

  it('reinstalls an install stamped complete whose binding has since gone', () => {
    const p = fakeProject(1);
    expect(bash(p.root, 'rlm_ensure_deps', p.path).status).toBe(0);
    expect(npmCalls(p.calls)).toBe(1);
    spawnSync('rm', ['-rf', join(p.root, 'node_modules/@rolldown')]);
    expect(bash(p.root, 'rlm_ensure_deps', p.path).status).toBe(0);
    expect(npmCalls(p.calls)).toBe(2);
  });
});
