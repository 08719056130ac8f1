// `setTimeout` with no upper bound: Node fires any delay above 2^31 - 1 ms (~24.8 days) after
// 1 ms instead, so a longer delay is waited out in steps.

/** Node's largest timer delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `fn` once `ms` have passed (however large); returns the function that cancels it. */
export function setLongTimeout(fn: () => void, ms: number): () => void {
  const due = performance.now() + Math.max(0, ms);
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const left = due - performance.now();
    if (left > MAX_TIMER_MS) timer = setTimeout(arm, MAX_TIMER_MS);
    else timer = setTimeout(fn, Math.max(0, left));
  };
  arm();
  return () => clearTimeout(timer);
}
