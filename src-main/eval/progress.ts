// Progress of a running evaluation, local or queued: counts, rate, cost and time left. It is
// drawn as a bar on the terminal and written to DIR/progress.json, which the app's Evaluation
// view polls while the state is `running` (a coordinator that died leaves a stale `updatedAt`).
import { renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { EvalProgress } from '../../src-shared/protocol.ts';
import type { TaskResult } from './results.ts';

/** How often progress.json is rewritten at most while sessions finish. */
const WRITE_EVERY_MS = 500;

export class ProgressTracker {
  private done = 0;
  private failed = 0;
  private costUsd = 0;
  private priced = 0;
  private running = 0;
  private doneHere = 0;
  private readonly startedAt = Date.now();
  private lastWrite = 0;
  private readonly path: string;
  private readonly mode: EvalProgress['mode'];
  private readonly total: number;

  constructor(outDir: string, mode: EvalProgress['mode'], total: number, previous: readonly TaskResult[]) {
    this.path = join(outDir, 'progress.json');
    this.mode = mode;
    this.total = total;
    for (const r of previous) this.count(r);
  }

  private count(r: TaskResult): void {
    this.done++;
    if (r.stopReason === 'error') this.failed++;
    if (r.usage.costUsd === null) return;
    this.costUsd += r.usage.costUsd;
    this.priced++;
  }

  /** A session finished and its line is in results.jsonl. */
  finished(r: TaskResult): void {
    this.count(r);
    this.doneHere++;
    this.write('running');
  }

  setRunning(n: number): void {
    if (n === this.running) return;
    this.running = n;
    this.write('running');
  }

  snapshot(state: EvalProgress['state']): EvalProgress {
    const elapsed = Date.now() - this.startedAt;
    const perMs = elapsed > 0 ? this.doneHere / elapsed : 0;
    const left = this.total - this.done;
    return {
      state,
      mode: this.mode,
      total: this.total,
      done: this.done,
      failed: this.failed,
      running: this.running,
      costUsd: this.done > 0 && this.priced === 0 ? null : Math.round(this.costUsd * 1e6) / 1e6,
      perMinute: Math.round(perMs * 60_000 * 100) / 100,
      etaMs: left <= 0 ? 0 : perMs > 0 ? Math.round(left / perMs) : null,
      startedAt: new Date(this.startedAt).toISOString(),
      updatedAt: new Date().toISOString(),
      host: hostname(),
      pid: process.pid,
    };
  }

  /** Rewrites progress.json (through a rename, so a reader never sees half of it); throttled while running. */
  write(state: EvalProgress['state'], force = state !== 'running'): void {
    const now = Date.now();
    if (!force && now - this.lastWrite < WRITE_EVERY_MS) return;
    this.lastWrite = now;
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(this.snapshot(state))}\n`);
    renameSync(tmp, this.path);
  }

  /** One line: a bar, then done/running/failed, rate, cost and time left. */
  line(width = 24): string {
    return progressLine(this.snapshot('running'), width);
  }
}

export function progressLine(p: EvalProgress, width = 24): string {
  const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(Math.max(0, width - filled))}`;
  return `${bar} ${p.done}/${p.total} done · ${p.running} running · ${p.failed} failed · ${p.perMinute.toFixed(1)}/min · ${p.costUsd === null ? 'cost unknown' : `$${p.costUsd.toFixed(4)}`} · ${p.etaMs === null ? 'ETA –' : `ETA ${duration(p.etaMs)}`}`;
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Draws the line in place on a terminal, or prints it at most every `everyMs` otherwise (logs, CI). */
export function progressPrinter(write: (s: string) => void, isTty: boolean, everyMs = 5000): { show(line: string): void; end(): void } {
  let last = 0;
  let drawn = false;
  return {
    show(line) {
      if (isTty) {
        write(`\r\x1b[2K${line}`);
        drawn = true;
        return;
      }
      const now = Date.now();
      if (now - last < everyMs) return;
      last = now;
      write(`${line}\n`);
    },
    end() {
      if (drawn) write('\n');
      drawn = false;
    },
  };
}
