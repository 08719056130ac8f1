// Which layers protect a REPL's code, as run.start records them (src-shared/events.ts
// SandboxInfo). Both REPLs are isolates whose memory limit holds against every allocation path
// (allocation-guard.ts); the environment is scrubbed when the REPL's process was started with
// sandbox-env.ts. A sandbox process adds what wraps it (engine/sandbox-process/).
import { environmentIsScrubbed } from './sandbox-env.ts';

/** The layers every REPL has, wherever it runs. */
export const ISOLATE_LAYERS: readonly string[] = ['isolate', 'memory-limit'];

/** The layers of a REPL running in this process. */
export function inProcessLayers(): string[] {
  return [...ISOLATE_LAYERS, ...(environmentIsScrubbed() ? ['scrubbed-env'] : [])];
}
