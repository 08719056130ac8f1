// The environment asked of processes that hold contexts: malloc's huge pages on Linux, added
// to any glibc tunables already set, never overriding a hugetlb setting of the caller's own.
import { describe, expect, it } from 'vitest';
import { HUGE_PAGE_TUNABLE, MMAP_THRESHOLD_TUNABLE, withHugePageMalloc, withSandboxMalloc } from '../../../src-main/sandbox/huge-pages.ts';

describe('withHugePageMalloc', () => {
  it('asks for huge pages on Linux, keeping the rest of the environment', () => {
    expect(withHugePageMalloc({ PATH: '/bin' }, 'linux')).toEqual({ PATH: '/bin', GLIBC_TUNABLES: HUGE_PAGE_TUNABLE });
    expect(HUGE_PAGE_TUNABLE).toBe('glibc.malloc.hugetlb=1');
  });

  it('adds to tunables already set', () => {
    expect(withHugePageMalloc({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, 'linux')['GLIBC_TUNABLES']).toBe(
      'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1',
    );
  });

  it("keeps a hugetlb setting of the caller's own, wherever it stands", () => {
    for (const own of ['glibc.malloc.hugetlb=0', 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2']) {
      expect(withHugePageMalloc({ GLIBC_TUNABLES: own }, 'linux')['GLIBC_TUNABLES']).toBe(own);
    }
    // A name that only ends the same way is another tunable.
    expect(withHugePageMalloc({ GLIBC_TUNABLES: 'x.glibc.malloc.hugetlb=0' }, 'linux')['GLIBC_TUNABLES']).toBe(
      'x.glibc.malloc.hugetlb=0:glibc.malloc.hugetlb=1',
    );
  });

  it('leaves other systems alone', () => {
    const env = { PATH: '/bin' };
    expect(withHugePageMalloc(env, 'darwin')).toBe(env);
    expect(withHugePageMalloc(env, 'win32')).toBe(env);
  });
});

describe('withSandboxMalloc', () => {
  it("asks for huge pages and a fixed mmap threshold, each unless the caller's own is set", () => {
    expect(MMAP_THRESHOLD_TUNABLE).toBe('glibc.malloc.mmap_threshold=131072');
    expect(withSandboxMalloc({}, 'linux')['GLIBC_TUNABLES']).toBe(`${HUGE_PAGE_TUNABLE}:${MMAP_THRESHOLD_TUNABLE}`);
    expect(withSandboxMalloc({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=0' }, 'linux')['GLIBC_TUNABLES']).toBe(
      `glibc.malloc.mmap_threshold=0:${HUGE_PAGE_TUNABLE}`,
    );
    const own = { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0:glibc.malloc.mmap_threshold=4096' };
    expect(withSandboxMalloc(own, 'linux')).toBe(own);
    expect(withSandboxMalloc({ PATH: '/bin' }, 'darwin')).toEqual({ PATH: '/bin' });
  });
});
