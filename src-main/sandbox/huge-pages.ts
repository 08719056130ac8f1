// The environment of a Node process that holds contexts: glibc's malloc asked to back what it
// maps with transparent huge pages (2 MiB) where the kernel allows them on request (its
// `madvise` mode, the usual default). A context's copies outside V8's heap (read buffers,
// isolated-vm's external copies, Pyodide's memory) are hundreds of MB of fresh memory, and
// touching fresh memory 4 KiB at a time is what their loading costs on a virtual machine:
// a 1 GB context file into a REPL took 0.67-0.73 s with huge pages against 4.0-4.7 s without
// (docs/performance.md, alternating on one day; how much 4 KiB pages cost varies from day to
// day). Processes that allocate little are unchanged (start-up, RSS).
// glibc before 2.35 and other C libraries ignore the setting; so do setuid programs.

export const HUGE_PAGE_TUNABLE = 'glibc.malloc.hugetlb=1';

/**
 * `env` with malloc's huge pages asked for (Linux only). GLIBC_TUNABLES the caller already
 * has is kept, and a hugetlb setting of its own (say `=0`, to measure without) wins.
 */
export function withHugePageMalloc(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  if (platform !== 'linux') return env;
  const tunables = env['GLIBC_TUNABLES'] ?? '';
  if (/(^|:)glibc\.malloc\.hugetlb=/.test(tunables)) return env;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${HUGE_PAGE_TUNABLE}` : HUGE_PAGE_TUNABLE };
}
