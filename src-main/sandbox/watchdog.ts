// The per-block limits of every REPL: CPU time (polled from the isolate or the process) and wall
// time minus the time blocked in host calls. Past either, the interpreter is stopped (an isolate
// disposed, a process killed), which ends the block.
import type ivm from 'isolated-vm';
import type { ReplResetReason } from '../../src-shared/events.ts';
import type { BlockState } from './block-state.ts';

const WATCHDOG_MS = 20;

/** Where a block runs, as the watchdog sees it. */
export interface CpuMeter {
  /** CPU time used so far in ms; null when it cannot be read (the interpreter is gone). */
  cpuMs(): number | null;
  /** Stops the interpreter, which ends the block. */
  stop(reason: ReplResetReason): void;
}

export interface Watchdog {
  /** Stops watching; returns the block's CPU time in ms and what killed it, if anything. */
  stop(): { cpuMs: number; killed: ReplResetReason | null };
}

export function watchBlock(
  meter: CpuMeter,
  block: BlockState,
  started: number,
  limits: { cpuLimitMs: number; wallLimitMs: number },
): Watchdog {
  const cpuStart = meter.cpuMs() ?? 0;
  let cpuNow = cpuStart;
  let killed: ReplResetReason | null = null;
  const sample = (): boolean => {
    const cpu = meter.cpuMs();
    if (cpu === null) return false; // gone under us; the run reports it
    cpuNow = cpu;
    return true;
  };
  const timer = setInterval(() => {
    if (killed || !sample()) return;
    const now = performance.now();
    // CPU time does not advance while the code waits on the host; wall time is corrected.
    const wallMs = now - started - block.blockedMs(now);
    if (cpuNow - cpuStart > limits.cpuLimitMs) killed = 'cpu_limit';
    else if (wallMs > limits.wallLimitMs) killed = 'wall_limit';
    if (killed) meter.stop(killed);
  }, WATCHDOG_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { cpuMs: cpuNow - cpuStart, killed };
    },
  };
}

/** An isolate's CPU time; stopping it disposes it. */
export function isolateMeter(isolate: ivm.Isolate): CpuMeter {
  return {
    cpuMs() {
      if (isolate.isDisposed) return null;
      try {
        return Number(isolate.cpuTime) / 1e6;
      } catch {
        return null;
      }
    },
    stop() {
      if (!isolate.isDisposed) isolate.dispose();
    },
  };
}
