// The environment of a process that runs model code (a sandbox process, a host's session
// worker): only what Node, glibc and the REPLs need, never the API keys or anything else of the
// user's. A child reads its whole environment from /proc/PID/environ for its whole life
// (deleting a variable later does not erase it there), so it is chosen when the child is
// spawned. The parent keeps its own environment: the model calls are made there (or, for a
// session worker, with a key the host sends over its channel).
//
// Whoever spawns such a process uses `sandboxEnvironment()`; an OS sandbox wrapped around it
// (bubblewrap) is spawned with it too, since its own process keeps the environment it got.

/** Variables kept, when set: the shell's basics, locale, temporary files, the REPLs' cache. */
const KEPT = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_CONFIG_HOME',
  'XDG_RUNTIME_DIR',
  // Ours, none a secret: the Pyodide snapshot's folder, the runs and settings folders, stack traces.
  'RLM_STUDIO_CACHE',
  'RLM_STUDIO_RUNS',
  'RLM_STUDIO_SETTINGS',
  'RLM_DEBUG',
  // Node's own: compiled-module cache; glibc's tunables (huge pages, huge-pages.ts).
  'NODE_COMPILE_CACHE',
  'GLIBC_TUNABLES',
  // Windows needs these to start a process at all.
  'SYSTEMROOT',
  'SystemRoot',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
];
const KEPT_PREFIXES = ['LC_'];

/** Set in every scrubbed environment, so a process can tell it runs in one. */
export const SCRUBBED_MARKER = 'RLM_STUDIO_SCRUBBED_ENV';

/**
 * The environment for a process that runs model code: the kept variables of `parent`, Node's
 * options emptied (a test runner's or debugger's hooks are not the child's), plus `extra`.
 */
export function sandboxEnvironment(parent: NodeJS.ProcessEnv = process.env, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (KEPT.includes(name) || KEPT_PREFIXES.some((p) => name.startsWith(p))) env[name] = value;
  }
  return { ...env, NODE_OPTIONS: '', [SCRUBBED_MARKER]: '1', ...extra };
}

/**
 * What a process that also makes the model calls (a host's session worker) needs of the network
 * settings: proxies and certificate authorities, when set.
 */
export function networkVariables(parent: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of [
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'NO_PROXY',
    'http_proxy',
    'https_proxy',
    'no_proxy',
    'NODE_USE_ENV_PROXY',
    'NODE_EXTRA_CA_CERTS',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
  ]) {
    if (parent[name] !== undefined) env[name] = parent[name];
  }
  return env;
}

/** True when this process was started with `sandboxEnvironment()`. */
export function environmentIsScrubbed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[SCRUBBED_MARKER] === '1';
}
