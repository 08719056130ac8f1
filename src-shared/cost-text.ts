// Costs when some of what they sum recorded no price: an endpoint that reports no cost is
// unknown, not free. Used by an evaluation's summary.md and the app's Evaluation view.

/** The cost of each item that recorded a price (the others are unknown, not $0). */
export function pricedCosts(items: readonly { costUsd: number | null }[]): number[] {
  return items.flatMap((x) => (x.costUsd === null ? [] : [x.costUsd]));
}

/** `fmt(total)`, or "unknown" when none of `of` had a price, or the total with how many it leaves out. */
export function totalCostText(total: number, unpriced: number, of: number, fmt: (usd: number) => string): string {
  if (unpriced === 0) return fmt(total);
  if (unpriced >= of) return 'unknown (no task recorded a price)';
  return `${fmt(total)} (${unpriced} task(s) without a price not counted)`;
}
