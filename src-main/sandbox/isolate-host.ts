// Whether this process may run isolated-vm isolates. isolated-vm needs a Node started without
// its startup snapshot (--no-node-snapshot): V8 shares read-only heap data between the isolates
// of a process, and isolates started from different snapshots can crash it (isolated-vm issue
// #420). A process started on the snapshot (the command line's `run` and `chat`, which start
// faster that way) keeps its REPLs in a sandbox process instead (engine/sandbox-process/).

/** True when this Node was started without its startup snapshot, so isolates can run here. */
export function canHostIsolates(): boolean {
  return process.execArgv.includes('--no-node-snapshot');
}

/** Throws a clear error instead of risking a crash later. */
export function assertCanHostIsolates(what: string): void {
  if (!canHostIsolates()) {
    throw new Error(
      `${what} needs isolated-vm, which cannot run in a Node started with its startup snapshot: start Node with --no-node-snapshot, or keep the REPLs in a sandbox process (engine/sandbox-process)`,
    );
  }
}
