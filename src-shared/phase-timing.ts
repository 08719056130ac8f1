// Where a whole-process command spends its time: named moments ("marks") noted by the parts
// that reach them (the command line, the model client, the sandbox process, the engine's
// events), reported once at exit by whoever turned the timing on (`RLM_STUDIO_TIMING=1`:
// cli/timing-report.ts). Off, a mark costs one comparison: the engine and the client call it
// on every request.

export interface PhaseMark {
  name: string;
  /** When it was noted, on the clock given to `enablePhaseTiming`. */
  at: number;
}

let marks: PhaseMark[] | null = null;
let clock: () => number = () => 0;

/** Starts noting marks, timed by `now` (this folder knows no platform clock); idempotent. */
export function enablePhaseTiming(now: () => number): void {
  if (marks !== null) return;
  marks = [];
  clock = now;
}

export function phaseTimingEnabled(): boolean {
  return marks !== null;
}

/** Notes that the process reached `name` now; nothing when the timing is off. */
export function markPhase(name: string): void {
  if (marks !== null) marks.push({ name, at: clock() });
}

/** The marks so far, in the order noted. */
export function phaseMarks(): readonly PhaseMark[] {
  return marks ?? [];
}
