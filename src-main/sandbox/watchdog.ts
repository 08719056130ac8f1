// The per-block limits of both REPLs: CPU time (`isolate.cpuTime`, polled) and wall time minus
// the time blocked in host calls. Past either, the isolate is disposed, which ends the block.
import type ivm from 'isolated-vm';
import type { ReplResetReason } from '../../src-shared/events.ts';
import type { BlockState } from './block-state.ts';

const WATCHDOG_MS = 20;

export interface Watchdog {
  /** Stops watching; returns the block's CPU time in ms and what killed it, if anything. */
  stop(): { cpuMs: number; killed: ReplResetReason | null };
}

export function watchBlock(
  isolate: ivm.Isolate,
  block: BlockState,
  started: number,
  limits: { cpuLimitMs: number; wallLimitMs: number },
): Watchdog {
  const cpuStart = isolate.cpuTime;
  let cpuNow = cpuStart;
  let killed: ReplResetReason | null = null;
  const sample = (): boolean => {
    try {
      cpuNow = isolate.cpuTime;
      return true;
    } catch {
      return false; // disposed under us; the run promise reports it
    }
  };
  const timer = setInterval(() => {
    if (killed || !sample()) return;
    const now = performance.now();
    // cpuTime does not advance while the isolate waits on the host; wall time is corrected.
    const cpuMs = Number(cpuNow - cpuStart) / 1e6;
    const wallMs = now - started - block.blockedMs(now);
    if (cpuMs > limits.cpuLimitMs) killed = 'cpu_limit';
    else if (wallMs > limits.wallLimitMs) killed = 'wall_limit';
    if (killed && !isolate.isDisposed) isolate.dispose();
  }, WATCHDOG_MS);
  return {
    stop() {
      clearInterval(timer);
      if (!isolate.isDisposed) sample();
      return { cpuMs: Number(cpuNow - cpuStart) / 1e6, killed };
    },
  };
}
