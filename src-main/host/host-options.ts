// How a host is set up: where it keeps runs and settings, where keys come from, how its
// session workers start, and its limits.
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import type { KeyStore } from './key-store.ts';
import type { WorkerLauncher } from './worker-launcher.ts';

export interface HostOptions {
  runsDir: string;
  settingsDir: string;
  /** Simulated latency of the built-in demo model, per call. Default 120 ms. */
  demoLatencyMs?: number;
  /** Where API keys named by profiles are looked up (web mode). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Desktop: resolves a keychain reference. Tried before `env`. */
  resolveKey?: (ref: string) => string | null;
  /** Shown in `hello`. */
  label?: string;
  /** Milliseconds a cancelled worker gets to wind down before it is killed. Default 5000. */
  cancelGraceMs?: number;
  /** Keep one booted worker ready so the next session starts at once. Default true. */
  prewarm?: boolean;
  /** How session workers are started. Default: child_process.fork of worker.ts (web mode). */
  workerLauncher?: WorkerLauncher;
  /** Desktop: where `profiles.setKey` stores keys (the OS keychain). Absent in web mode. */
  keyStore?: KeyStore;
  /**
   * Saved logs larger than this are not held in memory: their events stay in the file and
   * each subscription is served by reading it again from the start, skipping to `fromSeq`.
   * Default 64 MiB.
   */
  inMemoryLogMaxBytes?: number;
  /**
   * A finished live session keeps its worker and REPL for follow-up turns this long after its
   * last turn ended. Default 10 minutes.
   */
  followUpIdleMs?: number;
  /** At most this many finished sessions keep their REPLs; the one idle longest goes first. Default 4. */
  followUpKeep?: number;
  /** Told the events of live sessions as they arrive, after they are logged (e.g. `serve --otlp-endpoint`). */
  onLiveEvents?: (sessionId: string, events: readonly TrajectoryEvent[]) => void;
}
