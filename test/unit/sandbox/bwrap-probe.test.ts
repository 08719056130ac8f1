// The OS sandbox's probe, asked early without waiting (a whole-process `run` does) or at once:
// both give the same answer from bwrap's exit, and the early one's is kept.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'rlm-bwrap-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

/** A stand-in bwrap that records each start and exits as told. */
function fakeBwrap(name: string, exit: number, say: string): { path: string; starts: string } {
  const path = join(dir, name);
  const starts = join(dir, `${name}.starts`);
  writeFileSync(path, `#!/bin/sh\necho x >> '${starts}'\necho '${say}' >&2\nexit ${exit}\n`);
  chmodSync(path, 0o755);
  return { path, starts };
}

const load = () => import('../../../src-main/sandbox/os-sandbox/bwrap.ts');

describe.runIf(process.platform === 'linux')('OS sandbox probe', () => {
  it('an early probe answers without blocking, and the later question takes its answer', async () => {
    const bwrap = fakeBwrap('refusing', 1, 'no user namespaces');
    vi.stubEnv('RLM_STUDIO_BWRAP', bwrap.path);
    const m = await load();
    await m.probeOsSandboxSoon();
    const s = m.osSandboxSupport();
    expect(s.ok).toBe(false);
    expect(s.ok ? '' : s.reason).toMatch(/bubblewrap cannot create a sandbox here \(no user namespaces\)/);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(bwrap.starts, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('a working bwrap is ok, early or not', async () => {
    const bwrap = fakeBwrap('working', 0, '');
    vi.stubEnv('RLM_STUDIO_BWRAP', bwrap.path);
    const early = await load();
    await early.probeOsSandboxSoon();
    expect(early.osSandboxSupport()).toMatchObject({ ok: true, bwrap: bwrap.path });
    vi.resetModules();
    const direct = await load();
    expect(direct.osSandboxSupport()).toMatchObject({ ok: true, bwrap: bwrap.path });
  });

  it('names a missing bwrap without starting anything', async () => {
    vi.stubEnv('RLM_STUDIO_BWRAP', join(dir, 'absent'));
    const m = await load();
    await m.probeOsSandboxSoon();
    const s = m.osSandboxSupport();
    expect(s.ok ? '' : s.reason).toMatch(/RLM_STUDIO_BWRAP names .*absent, which is not an executable file/);
  });
});
