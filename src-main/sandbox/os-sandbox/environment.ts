// The whole environment of a sandboxed interpreter: nothing of this process's (no API keys, no
// user variables), only what the interpreter and its libraries need to behave.
export function cpythonEnvironment(): Record<string, string> {
  return {
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    HOME: '/tmp',
    // Two malloc arenas and one BLAS thread: each arena and thread reserves address space
    // against the limit, and sessions share the machine's cores.
    MALLOC_ARENA_MAX: '2',
    OPENBLAS_NUM_THREADS: '1',
    OMP_NUM_THREADS: '1',
    MKL_NUM_THREADS: '1',
  };
}
