// The sandbox process of the JavaScript and Pyodide REPLs (engine/sandbox-process/) inside the
// same bubblewrap sandbox as CPython, on Linux where bwrap works: no network (its IPC channel to
// the parent is an inherited socket pair, and every model call and tool call goes over it), a
// read-only root holding the system, the Node binary, and of the project only what the child
// runs (its sources or bundle, node_modules with isolated-vm's addon and Pyodide's files), no
// home folder, a private /tmp, an unprivileged uid, no capabilities, the seccomp filter (threads
// only: no subprocess, no fork), resource limits, and a scrubbed environment. No address-space
// limit: V8 reserves address space far beyond what it uses (each wasm memory ~10 GB of guard
// region), so the isolate's own memory limit (allocation-guard.ts) is what bounds memory.
// RLM_STUDIO_OS_SANDBOX=off runs the sandbox process without it (run.start then says so).
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { osSandboxSupport, spawnSandboxed } from './bwrap.ts';

/** The switch: `off` (or 0, false, no) runs the sandbox process without the OS sandbox. */
export const OS_SANDBOX_SWITCH = 'RLM_STUDIO_OS_SANDBOX';
/** Set inside, so the child knows it cannot write the cache folder (the parent saves for it). */
export const OS_SANDBOXED_MARKER = 'RLM_STUDIO_OS_SANDBOXED';

const PRLIMIT = '/usr/bin/prlimit';
const MB = 1024 * 1024;
/** Limits set by prlimit before Node starts, soft = hard (the child cannot raise them). */
/** The child's resource limits: prlimit's option, /proc/self/limits' row, the value wanted. */
const LIMITS: readonly [option: string, row: string, wanted: number][] = [
  ['--fsize', 'Max file size', 64 * MB],
  ['--nofile', 'Max open files', 512],
  ['--core', 'Max core file size', 0],
];

/**
 * prlimit's options: each limit at most what this process may have itself (its hard limit: a
 * shell's `ulimit -f` lower than ours would otherwise make prlimit fail with EPERM).
 */
export function limitOptions(procLimits: string): string[] {
  return LIMITS.map(([option, row, wanted]) => {
    const line = procLimits.split('\n').find((l) => l.startsWith(row));
    const hard = line ? /^\S.*?\s{2,}(\S+)\s+(\S+)/.exec(line)?.[2] : undefined;
    const n = hard === undefined || hard === 'unlimited' ? wanted : Math.min(wanted, Number(hard));
    return `${option}=${n}:${n}`;
  });
}

function ownLimits(): string {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return '';
  }
}
/** What the child needs of the project: its code and its packages (never .git, tests, runs). */
const PROJECT_PARTS = ['package.json', 'node_modules', 'src-main', 'src-shared', 'dist'];
/** Variables of the scrubbed environment that mean something inside (paths of the host's home do not). */
const PASSED = ['LANG', 'LANGUAGE', 'TZ', 'RLM_DEBUG', 'GLIBC_TUNABLES', 'NODE_OPTIONS', 'RLM_STUDIO_SCRUBBED_ENV'];

/** Why the sandbox process runs without the OS sandbox here, or null when it runs inside. */
export function nodeSandboxUnavailable(entry: string): string | null {
  if (/^(off|0|false|no)$/i.test(process.env[OS_SANDBOX_SWITCH] ?? '')) return `turned off (${OS_SANDBOX_SWITCH}=off)`;
  const s = osSandboxSupport();
  if (!s.ok) return s.reason;
  if (projectRoot(entry) === null) return `no package.json above ${entry}`;
  return null;
}

/** The layers the OS sandbox adds around the sandbox process (run.start's names), innermost first. */
export function nodeSandboxLayers(): string[] {
  const s = osSandboxSupport();
  if (!s.ok) return [];
  return [...(hasPrlimit() ? ['rlimits'] : []), ...(s.seccomp ? ['seccomp'] : []), 'bwrap'];
}

export interface NodeSandboxSpawn {
  /** The child's entry module. */
  entry: string;
  execArgv: string[];
  /** The scrubbed environment the child would get outside (sandbox-env.ts); what fits inside is kept. */
  env: NodeJS.ProcessEnv;
  /** Host files the child reads by their own path (context files); missing ones are left out. */
  files: string[];
  /** A host folder bound read-only at its own path, named to the child in RLM_STUDIO_CACHE (the REPLs' cache). */
  cache: string;
}

/**
 * Starts Node on `entry` inside the OS sandbox, with its IPC channel (advanced serialization) at
 * fd 3 and stderr inherited. The returned process is bwrap's; the child is pid 1 inside.
 */
export function spawnNodeSandboxed(o: NodeSandboxSpawn): { child: ChildProcess; pid: Promise<number | null> } {
  const root = projectRoot(o.entry);
  if (root === null) throw new Error(`no package.json above ${o.entry}`);
  const node = realpathSync(process.execPath);
  const readOnly = [node, ...PROJECT_PARTS.map((p) => join(root, p)).filter((p) => existsSync(p))];
  for (const f of [o.cache, ...o.files]) if (existsSync(f)) readOnly.push(f);
  const env: Record<string, string> = { PATH: '/usr/bin:/bin', HOME: '/tmp', TMPDIR: '/tmp' };
  for (const [k, v] of Object.entries(o.env)) if (v !== undefined && (PASSED.includes(k) || k.startsWith('LC_'))) env[k] = v;
  Object.assign(env, {
    RLM_STUDIO_CACHE: o.cache,
    [OS_SANDBOXED_MARKER]: '1',
    NODE_CHANNEL_FD: '3',
    NODE_CHANNEL_SERIALIZATION_MODE: 'advanced',
  });
  const program = [node, ...o.execArgv, o.entry];
  const spawned = spawnSandboxed({
    argv: hasPrlimit() ? [PRLIMIT, ...limitOptions(ownLimits()), '--', ...program] : program,
    readOnly,
    env,
    extraFds: 0,
    ipc: { serialization: 'advanced' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child: spawned.child, pid: spawned.pid };
}

let prlimit: boolean | null = null;

function hasPrlimit(): boolean {
  if (prlimit === null) {
    try {
      accessSync(PRLIMIT, constants.X_OK);
      prlimit = true;
    } catch {
      prlimit = false;
    }
  }
  return prlimit;
}

/** The folder of the package.json nearest above `entry` (the project, or an unpacked app). */
function projectRoot(entry: string): string | null {
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'node_modules'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}
