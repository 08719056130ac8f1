// A total cost in words when some of what it sums recorded no price: an endpoint that reports
// no cost is unknown, not free. Used by an evaluation's summary.md and the app's Evaluation view.

/** `fmt(total)`, or "unknown" when none of `of` had a price, or the total with how many it leaves out. */
export function totalCostText(total: number, unpriced: number, of: number, fmt: (usd: number) => string): string {
  if (unpriced === 0) return fmt(total);
  if (unpriced >= of) return 'unknown (no task recorded a price)';
  return `${fmt(total)} (${unpriced} task(s) without a price not counted)`;
}
