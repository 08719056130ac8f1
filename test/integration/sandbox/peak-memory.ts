// The peak resident memory of another process, from /proc (Linux): VmHWM, which the kernel
// keeps for the process's whole life, so no allocation between two readings is missed. Writing
// 5 to clear_refs starts a new peak from the current size, so each probe measures its own.
import { readFileSync, writeFileSync } from 'node:fs';

const MB = 1024;

function statusField(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} for process ${pid}`);
  return Number(m[1]) / MB;
}

/** Starts a new peak at the process's current resident size. */
export function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The peak resident size since the last reset (or the start), in MiB. */
export function peakMb(pid: number): number {
  return statusField(pid, 'VmHWM');
}

/** The resident size now, in MiB. */
export function residentMb(pid: number): number {
  return statusField(pid, 'VmRSS');
}
