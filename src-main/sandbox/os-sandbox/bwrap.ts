// Spawning a program inside bubblewrap (Linux): its own user, pid, network, IPC, UTS and cgroup
// namespaces (so no network at all, and only its own processes in /proc), a read-only root that
// holds only the system's binaries and libraries plus the paths the caller names (never the
// home folder or the repository), a small private /tmp, no capabilities, an unprivileged uid
// inside, and the seccomp filter of seccomp.ts. bwrap itself is started with the environment it
// is given and nothing of this process's (with --unshare-pid, the first process inside kept the
// environment bwrap was started with, keys included, readable at /proc/1/environ; --as-pid-1
// leaves no such process, and the program's own environment is set with --clearenv/--setenv).
import { type ChildProcess, type IOType, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { platform } from 'node:process';
import type { Readable, Writable } from 'node:stream';
import { seccompFilter } from './seccomp.ts';

/** The uid and gid the program runs as inside (nobody). */
const INSIDE_ID = '65534';
/** The private /tmp: a tmpfs takes memory the address-space limit does not count. */
const TMP_BYTES = 64 * 1024 * 1024;
/** System folders bound read-only (or re-created as the symlinks they are, on merged-/usr systems). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/**
 * System files the dynamic loader needs to find libraries (Debian's multiarch folders are in
 * them, and libblas is an alternative), and the kernel's transparent-huge-page settings, which
 * glibc's malloc reads before it asks for huge pages (huge-pages.ts: without them a 1 GB context
 * loads several times slower).
 */
const SYSTEM_FILES = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/sys/kernel/mm/transparent_hugepage',
];
const PROBE_TIMEOUT_MS = 10_000;

export type OsSandboxSupport = { ok: true; bwrap: string; seccomp: boolean } | { ok: false; reason: string };

let support: OsSandboxSupport | null = null;
let probing: Promise<void> | null = null;

/** Whether this machine can run a program in the OS sandbox, and if not, why (probed once). */
export function osSandboxSupport(): OsSandboxSupport {
  if (support) return support;
  const found = locateBwrap();
  if (typeof found !== 'string') return (support = found);
  const r = spawnSync(found, PROBE_ARGS, { env: PROBE_ENV, encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
  return (support = verdict(found, r.status, r.stderr || r.error?.message || `exit ${r.status ?? r.signal}`));
}

/**
 * Starts the probe without waiting for it. A whole-process `run` asks for it first thing: its
 * bwrap then runs beside the command's module loading instead of blocking the thread later
 * (~15-20 ms before the first model request). `osSandboxSupport` takes its answer when it has
 * come, and probes for itself otherwise.
 */
export function probeOsSandboxSoon(): Promise<void> {
  if (support) return Promise.resolve();
  if (probing) return probing;
  const found = locateBwrap();
  if (typeof found !== 'string') {
    support = found;
    return Promise.resolve();
  }
  probing = new Promise<void>((resolve) => {
    let stderr = '';
    const child = spawn(found, PROBE_ARGS, { env: PROBE_ENV, stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err) => {
      support ??= verdict(found, null, err.message);
      resolve();
    });
    child.on('close', (code, signal) => {
      support ??= verdict(found, code, stderr || `exit ${code ?? signal}`);
      resolve();
    });
  });
  return probing;
}

const PROBE_ARGS = ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', 'true'];
const PROBE_ENV = { PATH: '/usr/bin:/bin' };

/** bwrap's path, or why there is none to probe. */
function locateBwrap(): string | OsSandboxSupport {
  if (platform !== 'linux') {
    return { ok: false, reason: `no OS sandbox on ${platform}: it needs bubblewrap, which runs on Linux only` };
  }
  // RLM_STUDIO_BWRAP names bwrap where it is not on PATH (and lets tests take it away).
  const named = process.env.RLM_STUDIO_BWRAP;
  const bwrap = named ? (isExecutable(named) ? named : null) : findOnPath('bwrap');
  if (bwrap) return bwrap;
  return {
    ok: false,
    reason: named
      ? `RLM_STUDIO_BWRAP names ${named}, which is not an executable file`
      : 'bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)',
  };
}

/** What the probe's exit says. */
function verdict(bwrap: string, status: number | null, said: string): OsSandboxSupport {
  if (status !== 0) {
    return {
      ok: false,
      reason: `bubblewrap cannot create a sandbox here (${said.trim()}); unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone, or an AppArmor policy)`,
    };
  }
  return { ok: true, bwrap, seccomp: seccompFilter() !== null };
}

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).concat(['/usr/bin', '/bin'])) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface SandboxedSpawn {
  /** The program and its arguments, as paths inside the sandbox. */
  argv: string[];
  /** Host folders and files bound read-only at the same place inside. */
  readOnly: string[];
  /** Host files bound read-only elsewhere inside. */
  files?: { source: string; dest: string }[];
  /** The program's whole environment. */
  env: Record<string, string>;
  /** Extra descriptors: each a socket pair, the program's fd 3, 4… (after the IPC channel, if any). */
  extraFds: number;
  /** A Node child's IPC channel (`child.send`) at the program's fd 3; its environment must name it (NODE_CHANNEL_FD). */
  ipc?: { serialization: 'json' | 'advanced' };
  /** The program's stdin, stdout and stderr (default: nothing in, both out piped). */
  stdio?: [IOType, IOType, IOType];
  /**
   * The program is pid 1 of its namespace, no bwrap process inside (default). A program that
   * must be able to kill itself (a signal to pid 1 from inside never kills it) sets false; bwrap's
   * own process inside then keeps the environment bwrap was started with, which is ours only.
   */
  asPid1?: boolean;
}

export interface SandboxedChild {
  child: ChildProcess;
  /** The program's host process id (for its CPU time), or null when bwrap did not say. */
  pid: Promise<number | null>;
  stdout: Readable | null;
  stderr: Readable | null;
  /** The socket pairs, in order (fd 3, 4, …). */
  fds: (Readable & Writable)[];
}

/** The bwrap arguments around a program (exported for tests and the docs). */
export function bwrapArguments(spec: SandboxedSpawn, fds: { seccomp: number | null; info: number }): string[] {
  const args = ['--unshare-all', '--unshare-user', ...(spec.asPid1 === false ? [] : ['--as-pid-1'])];
  args.push('--die-with-parent', '--new-session', '--disable-userns');
  args.push('--uid', INSIDE_ID, '--gid', INSIDE_ID, '--hostname', 'sandbox', '--cap-drop', 'ALL');
  for (const dir of SYSTEM_DIRS) {
    const link = symlinkTarget(dir);
    if (link !== null) args.push('--symlink', link, dir);
    else if (existsSync(dir)) args.push('--ro-bind', dir, dir);
  }
  for (const file of SYSTEM_FILES) args.push('--ro-bind-try', file, file);
  args.push('--proc', '/proc', '--dev', '/dev', '--size', String(TMP_BYTES), '--tmpfs', '/tmp', '--chdir', '/tmp');
  // After the private /tmp, so that a file under the host's /tmp (a context file) shows through it.
  for (const path of spec.readOnly) {
    if (SYSTEM_DIRS.some((dir) => path === dir || path.startsWith(`${dir}/`))) continue;
    args.push('--ro-bind', path, path);
  }
  for (const f of spec.files ?? []) args.push('--ro-bind', f.source, f.dest);
  args.push('--remount-ro', '/');
  args.push('--clearenv');
  for (const [k, v] of Object.entries(spec.env)) args.push('--setenv', k, v);
  if (fds.seccomp !== null) args.push('--seccomp', String(fds.seccomp));
  args.push('--info-fd', String(fds.info));
  args.push('--', ...spec.argv);
  return args;
}

function symlinkTarget(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
}

/** Starts `spec.argv` in the OS sandbox; throws with the reason where there is none. */
export function spawnSandboxed(spec: SandboxedSpawn): SandboxedChild {
  const s = osSandboxSupport();
  if (!s.ok) throw new Error(s.reason);
  const filter = s.seccomp ? seccompFilter() : null;
  const stdio: (IOType | 'ipc')[] = [...(spec.stdio ?? ['ignore', 'pipe', 'pipe'])];
  if (spec.ipc) stdio.push('ipc');
  const extraAt = stdio.length;
  for (let i = 0; i < spec.extraFds; i++) stdio.push('pipe');
  const seccompFd = filter ? stdio.length : null;
  if (filter) stdio.push('pipe');
  const infoFd = stdio.length;
  stdio.push('pipe');
  // bwrap gets no variable of ours: what it is started with, its first process would keep.
  const child = spawn(s.bwrap, bwrapArguments(spec, { seccomp: seccompFd, info: infoFd }), {
    stdio,
    env: { PATH: '/usr/bin:/bin' },
    ...(spec.ipc ? { serialization: spec.ipc.serialization } : {}),
  });
  if (filter && seccompFd !== null) {
    const pipe = child.stdio[seccompFd] as Writable;
    // bwrap reads it at start; if bwrap fails first, its exit says why.
    pipe.on('error', () => undefined);
    pipe.end(filter);
  }
  const info = child.stdio[infoFd] as Readable;
  const pid = new Promise<number | null>((resolve) => {
    let text = '';
    info.setEncoding('utf8');
    info.on('data', (chunk: string) => {
      text += chunk;
      const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    info.on('close', () => resolve(null));
    info.on('error', () => resolve(null));
  });
  // The extra pipes ('pipe' entries past stderr) are duplex sockets.
  const fds: (Readable & Writable)[] = [];
  for (let i = 0; i < spec.extraFds; i++) fds.push(child.stdio[extraAt + i] as Readable & Writable);
  return { child, pid, stdout: child.stdout, stderr: child.stderr, fds };
}

/** The CPU time (user + system, ms) a process has used, from /proc; null once it is gone. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(rest[11]) + Number(rest[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS : null;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux build Node runs on. */
const CLOCK_TICKS = 100;
