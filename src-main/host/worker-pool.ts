// Session workers before they have a session: one booted spare is kept so a new session starts
// at once, and once a Python session has been seen the spare starts an interpreter as it boots.
import type { WorkerHandle, WorkerLauncher } from './worker-launcher.ts';
import type { ToWorker } from './worker-protocol.ts';

export interface SpareWorker {
  child: WorkerHandle;
  ready: boolean;
  stderr: string;
  /** Told to start a Python interpreter. */
  warmed?: boolean;
}

export class WorkerPool {
  private readonly launcher: WorkerLauncher;
  private readonly prewarm: boolean;
  private readonly isClosed: () => boolean;
  private spare: SpareWorker | null = null;
  /** A Python session has been started here: spare workers start an interpreter as they boot. */
  private pythonExpected = false;

  constructor(launcher: WorkerLauncher, prewarm: boolean, isClosed: () => boolean) {
    this.launcher = launcher;
    this.prewarm = prewarm;
    this.isClosed = isClosed;
  }

  /** Whether a booted spare is waiting (benchmarks time sessions started on a warm host). */
  get spareReady(): boolean {
    return this.spare?.ready === true;
  }

  /** A worker process not yet given a session: booting Node and the engine takes ~0.4 s. */
  private forkWorker(): SpareWorker {
    const child = this.launcher.launch();
    const w: SpareWorker = { child, ready: false, stderr: '' };
    child.listen({
      stderr: (d) => void (w.stderr = (w.stderr + d).slice(-4000)),
      message: (raw) => {
        if (typeof raw === 'object' && raw !== null && (raw as { t?: unknown }).t === 'ready') {
          w.ready = true;
          if (this.pythonExpected && this.spare === w) this.warmSpare(w);
        }
      },
      exit: () => {
        if (this.spare === w) this.spare = null;
      },
    });
    return w;
  }

  private warmSpare(w: SpareWorker): void {
    if (w.ready && w.child.connected && !w.warmed) {
      w.warmed = true;
      w.child.send({ t: 'warm', repl: 'python' } satisfies ToWorker);
    }
  }

  /** From now on spare workers keep a Python interpreter ready (~0.3 s of a core, ~60 MB each). */
  expectPython(): void {
    this.pythonExpected = true;
    if (this.spare) this.warmSpare(this.spare);
  }

  /** Takes the booted spare (or forks one) and boots the next spare in the background. */
  claimWorker(): SpareWorker {
    let w = this.spare;
    this.spare = null;
    if (!w || w.child.exited || !w.child.connected) w = this.forkWorker();
    if (this.prewarm) {
      setImmediate(() => {
        if (!this.isClosed() && this.spare === null) this.spare = this.forkWorker();
      });
    }
    return w;
  }

  /** Kills the spare, if any; resolves when it has exited. */
  close(): Promise<void> | null {
    const spare = this.spare;
    this.spare = null;
    if (!spare || spare.child.exited) return null;
    const exited = spare.child.whenExited();
    spare.child.kill();
    return exited;
  }
}
