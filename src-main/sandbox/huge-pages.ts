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
 * malloc's threshold for serving an allocation with its own mapping, fixed at glibc's default
 * (128 KiB). Left alone, glibc raises the threshold to the size of each mapped block freed,
 * up to 32 MiB; a process that has freed a Pyodide start's ~15 MB of snapshot bytes then
 * serves later blocks that size from its arenas, which keep freed memory: an evaluation's
 * sandbox process held ~18 MB more per Python session (59 against 41 MB, six interpreters in
 * one process; docs/performance.md "Memory per concurrent session").
 */
export const MMAP_THRESHOLD_TUNABLE = 'glibc.malloc.mmap_threshold=131072';

/**
 * `env` with malloc's huge pages asked for (Linux only). GLIBC_TUNABLES the caller already
 * has is kept, and a hugetlb setting of its own (say `=0`, to measure without) wins.
 */
export function withHugePageMalloc(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  return withTunables(env, [HUGE_PAGE_TUNABLE], platform);
}

/**
 * The environment of a process that runs sessions' REPLs: malloc's huge pages and a fixed
 * mmap threshold (Linux only); each a setting of the caller's own overrides.
 */
export function withSandboxMalloc(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  return withTunables(env, [HUGE_PAGE_TUNABLE, MMAP_THRESHOLD_TUNABLE], platform);
}

function withTunables(env: NodeJS.ProcessEnv, wanted: string[], platform: NodeJS.Platform): NodeJS.ProcessEnv {
  if (platform !== 'linux') return env;
  let tunables = env['GLIBC_TUNABLES'] ?? '';
  for (const t of wanted) {
    const name = t.slice(0, t.indexOf('='));
    if (new RegExp(`(^|:)${name.replaceAll('.', '\\.')}=`).test(tunables)) continue;
    tunables = tunables ? `${tunables}:${t}` : t;
  }
  return tunables === (env['GLIBC_TUNABLES'] ?? '') ? env : { ...env, GLIBC_TUNABLES: tunables };
}
