/** A step of the calls-in-flight curve: `n` calls in flight from time `t` on. */
export interface ConcurrencyStep {
  t: number;
  n: number;
}

/**
 * Calls in flight over time, by a sweep over start and end points. At one instant, calls
 * that end there are let go before those that start there (back to back is not overlap),
 * but a call that starts and ends at the same instant (fast calls on a millisecond clock,
 * a batch answered at once) counts while it lasts, never as an end before its own start.
 */
export function concurrency(spans: readonly { start: number; end: number }[]): ConcurrencyStep[] {
  // Order at one instant: ends of calls with a duration, then starts, then ends of instant calls.
  const pts: [t: number, order: number, delta: number][] = [];
  for (const s of spans) {
    const end = Math.max(s.start, s.end);
    pts.push([s.start, 1, 1], [end, end > s.start ? 0 : 2, -1]);
  }
  pts.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  const steps: ConcurrencyStep[] = [{ t: 0, n: 0 }];
  for (const [t, , d] of pts) {
    cur += d;
    steps.push({ t, n: cur });
  }
  return steps;
}
