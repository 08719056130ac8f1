// Which protection layers stand around a CPython session, named as `run.start` records every
// REPL's layers (src-shared/events.ts, SandboxInfo), innermost first.
import { osSandboxSupport } from './bwrap.ts';

export type CPythonLayer = 'memory-limit' | 'rlimits' | 'seccomp' | 'bwrap' | 'scrubbed-env';

/** The layers of a CPython session on this machine; empty where there is no OS sandbox (the REPL then refuses to start). */
export function cpythonProtectionLayers(): CPythonLayer[] {
  const s = osSandboxSupport();
  if (!s.ok) return [];
  return ['memory-limit', 'rlimits', ...(s.seccomp ? (['seccomp'] as const) : []), 'bwrap', 'scrubbed-env'];
}
