// The processes that hold contexts are started asking malloc for huge pages and a fixed mmap threshold
// (src-main/sandbox/huge-pages.ts): a session worker forked by the host and the sandbox process
// of `run` and `chat`, whoever started their parent, and a tunable of the caller's own is kept.
// A probe stands in for each child's entry and writes down the tunables it was given.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SandboxProcess } from '../../../src-main/engine/sandbox-process/sandbox-process.ts';
import { forkLauncher } from '../../../src-main/host/worker-launcher.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-huge-pages-'));
const probe = join(dir, 'probe.mjs');
const out = join(dir, 'probe.json');
writeFileSync(
  probe,
  [
    "import { writeFileSync } from 'node:fs';",
    `writeFileSync(${JSON.stringify(out)}, JSON.stringify({ tunables: process.env.GLIBC_TUNABLES ?? null }));`,
    'process.exit(0);',
  ].join('\n'),
);
const before = process.env['GLIBC_TUNABLES'];
afterEach(() => {
  if (before === undefined) delete process.env['GLIBC_TUNABLES'];
  else process.env['GLIBC_TUNABLES'] = before;
  rmSync(out, { force: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function tunablesOf(start: () => Promise<void>): Promise<string | null> {
  await start();
  return (JSON.parse(readFileSync(out, 'utf8')) as { tunables: string | null }).tunables;
}

const forkedWorker = async (): Promise<void> => forkLauncher(probe).launch().whenExited();
async function sandboxChild(): Promise<void> {
  const p = new SandboxProcess(probe);
  p.start();
  const pid = p.pid;
  // The probe exits by itself; wait for that rather than for a message it never sends.
  while (pid !== undefined && alive(pid)) await new Promise((r) => setTimeout(r, 10));
  p.close();
}
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const SANDBOX_TUNABLES = 'glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=131072';
const expected = (own: string | null): string | null =>
  process.platform !== 'linux' ? own : own ? `${own}:${SANDBOX_TUNABLES}` : SANDBOX_TUNABLES;

describe.each([
  ['a session worker forked by the host', forkedWorker],
  ['the sandbox process', sandboxChild],
])('%s', (_name, start) => {
  it('is asked for huge pages', async () => {
    delete process.env['GLIBC_TUNABLES'];
    expect(await tunablesOf(start)).toBe(expected(null));
    process.env['GLIBC_TUNABLES'] = 'glibc.malloc.arena_max=4';
    expect(await tunablesOf(start)).toBe(expected('glibc.malloc.arena_max=4'));
  });

  it("keeps a hugetlb setting of the caller's own", async () => {
    process.env['GLIBC_TUNABLES'] = 'glibc.malloc.hugetlb=0';
    expect(await tunablesOf(start)).toBe(
      process.platform === 'linux' ? 'glibc.malloc.hugetlb=0:glibc.malloc.mmap_threshold=131072' : 'glibc.malloc.hugetlb=0',
    );
  });
});
