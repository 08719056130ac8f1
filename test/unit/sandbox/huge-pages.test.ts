// The environment asked of processes that hold contexts: malloc's huge pages on Linux, added
// to any glibc tunables already set, never overriding a hugetlb setting of the caller's own.
import { describe, expect, it } from 'vitest';
import { HUGE_PAGE_TUNABLE, withHugePageMalloc } from '../../../src-main/sandbox/huge-pages.ts';

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
