// Where a whole-process command spends its time: named moments ("marks") noted by the parts
// that reach them (the command line, the model client, the sandbox process, the engine's
// events), reported once at exit by whoever turned the timing on (`RLM_STUDIO_TIMING=1`:
// cli/timing-report.ts). Off, a mark costs one comparison: the engine and the client call it
// on every request.

export interface PhaseMark {
  name: string;
  /** When it was noted, on the clock given to `enablePhaseTiming`. */
  at: number;
  /** The process's CPU time by then (ms), when a CPU clock was given. */
  cpu: number | null;
}

let marks: PhaseMark[] | null = null;
let clock: () => number = () => 0;
let cpuClock: (() => number) | null = null;

/**
 * Starts noting marks, timed by `now` and, if given, `cpu` (the CPU time this process has
 * used, which other work on the machine moves far less); this folder knows no platform
 * clock. Idempotent.
 */
export function enablePhaseTiming(now: () => number, cpu?: () => number): void {
  if (marks !== null) return;
  marks = [];
  clock = now;
  cpuClock = cpu ?? null;
}

export function phaseTimingEnabled(): boolean {
  return marks !== null;
}

/** Notes that the process reached `name` now; nothing when the timing is off. */
export function markPhase(name: string): void {
  if (marks !== null) marks.push({ name, at: clock(), cpu: cpuClock ? cpuClock() : null });
}

/** The marks so far, in the order noted. */
export function phaseMarks(): readonly PhaseMark[] {
  return marks ?? [];
}
