// Numbers as the views print them: costs and tokens as far as they are known, dollars,
// durations, integers.
import { costUnknown, tokensUnknown, type TrajectoryTotals } from '../../src-shared/trajectory/index.ts';

/** What a total knows of its calls' usage (a TrajectoryTotals). */
type UsageKnowledge = Pick<TrajectoryTotals, 'modelCalls' | 'costUsd' | 'unpricedCalls' | 'unknownUsageCalls'>;

/**
 * A cost as far as it is known: "$0.012"; "$0.012 + unknown" when some calls had no price;
 * `none` when no call had one. `tight` (a tree row): "—" and "$0.012+".
 */
export function fmtCost(t: UsageKnowledge, { tight = false, none = 'cost unknown' }: { tight?: boolean; none?: string } = {}): string {
  if (t.unpricedCalls === 0) return fmtUsd(t.costUsd);
  if (costUnknown(t)) return tight ? '—' : none;
  return tight ? `${fmtUsd(t.costUsd)}+` : `${fmtUsd(t.costUsd)} + unknown`;
}

/** A token count as far as it is known; as `fmtCost`, with "unknown" when no call's usage was recorded. */
export function fmtTokens(n: number, t: UsageKnowledge, tight = false): string {
  if (t.unknownUsageCalls === 0) return fmtInt(n);
  if (tokensUnknown(t)) return tight ? '—' : 'unknown';
  return tight ? `${fmtInt(n)}+` : `${fmtInt(n)} + unknown`;
}

/** "1,200 in / 80 out" (then `unit`), "… + unknown" when some calls' usage was not recorded, `none` when no call's was. */
export function fmtTokenPair(
  t: UsageKnowledge & Pick<TrajectoryTotals, 'inputTokens' | 'outputTokens'>,
  { unit = '', none = 'tokens unknown' }: { unit?: string; none?: string } = {},
): string {
  if (tokensUnknown(t)) return none;
  return `${fmtInt(t.inputTokens)} in / ${fmtInt(t.outputTokens)} out${unit}${t.unknownUsageCalls > 0 ? ' + unknown' : ''}`;
}

/** Why usage shows as unknown, for a title; undefined when all of it is known. */
export function usageNote(t: UsageKnowledge): string | undefined {
  const parts: string[] = [];
  if (t.unknownUsageCalls > 0)
    parts.push(
      `${t.unknownUsageCalls} of ${t.modelCalls} model calls have no token usage recorded (a reference log does not record its root model's)`,
    );
  if (t.unpricedCalls > 0) parts.push(`${t.unpricedCalls} of ${t.modelCalls} model calls have no known price, so their cost is unknown`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

export function fmtUsd(v: number): string {
  return v === 0 ? '$0' : v < 0.01 ? `$${v.toFixed(5)}` : `$${v.toFixed(3)}`;
}

export function fmtMs(v: number): string {
  // Two significant figures below 10 ms: a chart's time axis over sub-millisecond blocks read "0 ms" at every tick.
  if (v < 10) return `${Number(v.toPrecision(2))} ms`;
  return v < 1000 ? `${Math.round(v)} ms` : v < 60_000 ? `${(v / 1000).toFixed(2)} s` : `${(v / 60_000).toFixed(1)} min`;
}

// One formatter: `toLocaleString('en-US')` builds a new Intl formatter per call (~0.1 ms),
// which showed up as 60 ms per commit across the tree rows of a big log.
const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function fmtInt(v: number): string {
  return INT.format(Math.round(v));
}
