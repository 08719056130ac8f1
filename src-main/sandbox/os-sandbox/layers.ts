// Which protection layers stand around a CPython session, in the words `run.start` records
// them (the lead merges these with the other REPLs' layers: isolate, scrubbed environment…).
import { osSandboxSupport } from './bwrap.ts';

export type CPythonLayer = 'os-sandbox:bwrap' | 'seccomp' | 'rlimits' | 'scrubbed-env';

/** The layers of a CPython session on this machine; empty where there is no OS sandbox (the REPL then refuses to start). */
export function cpythonProtectionLayers(): CPythonLayer[] {
  const s = osSandboxSupport();
  if (!s.ok) return [];
  return ['os-sandbox:bwrap', ...(s.seccomp ? (['seccomp'] as const) : []), 'rlimits', 'scrubbed-env'];
}
