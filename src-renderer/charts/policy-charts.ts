// d3 drawings for the policy metrics: a histogram with its quartile box from figures the
// host already binned, the same for correct vs incorrect sessions on one axis (the paper's
// Figure 10), and a stacked bar of where a run's tokens went.
import { axisBottom, axisLeft, max as d3max, scaleLinear, select } from 'd3';
import type { FigureDistribution } from '../../src-shared/analysis/policy-aggregate.ts';
import type { Histogram } from '../../src-shared/trajectory/distributions.ts';
import { drawBox, drawLegend, formatInteger, integerTicks, tickCount } from './chart-layout.ts';

// The left margin holds the series' names beside their boxes ("incorrect" is the longest).
const M = { top: 14, right: 20, bottom: 28, left: 62 };

interface Series {
  label: string;
  cls: string;
  dist: FigureDistribution;
}

function domainOf(series: readonly Series[]): [number, number] {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of series) {
    const e = s.dist.histogram.edges;
    if (e.length === 0) continue;
    lo = Math.min(lo, e[0] as number);
    hi = Math.max(hi, e[e.length - 1] as number);
  }
  return Number.isFinite(lo) ? [lo, hi] : [0, 1];
}

/**
 * Histograms (bars side by side when there are several series, all binned alike by the host)
 * and one quartile box per series under the axis: box p25–p75, median line, whisker min–max.
 */
export function drawHistograms(
  svg: SVGSVGElement,
  series: readonly Series[],
  height: number,
  fmt: (v: number) => string,
  width: number,
): void {
  const boxesH = series.length * 18 + 10;
  const ih = height - M.top - M.bottom - boxesH;
  const iw = width - M.left - M.right;
  const g = select(svg).append('g').attr('transform', `translate(${M.left},${M.top})`);
  const [lo, hi] = domainOf(series);
  const x = scaleLinear().domain([lo, hi]).range([0, iw]);
  const top = d3max(series.flatMap((s) => s.dist.histogram.counts)) ?? 1;
  const y = scaleLinear()
    .domain([0, top || 1])
    .range([ih, 0]);
  series.forEach((s, k) => {
    const h: Histogram = s.dist.histogram;
    const bars = h.counts.map((c, i) => ({ c, x0: h.edges[i] as number, x1: h.edges[i + 1] as number }));
    g.append('g')
      .attr('class', `hist ${s.cls}`)
      .attr('data-series', s.label)
      .selectAll('rect')
      .data(bars)
      .join('rect')
      .attr('class', s.cls)
      .attr('data-count', (b) => b.c)
      .attr('x', (b) => x(b.x0) + ((x(b.x1) - x(b.x0)) / series.length) * k)
      .attr('width', (b) => Math.max(1, (x(b.x1) - x(b.x0)) / series.length - 1))
      .attr('y', (b) => y(b.c))
      .attr('height', (b) => ih - y(b.c))
      .append('title')
      .text((b) => `${s.label}: ${b.c} session(s) in [${fmt(b.x0)}, ${fmt(b.x1)})`);
  });
  g.append('g').call(axisLeft(y).tickValues(integerTicks(y, 4)).tickFormat(formatInteger));
  // The host bins a figure of whole numbers one value per bin, on whole edges: no ticks between.
  const whole = series.every((s) => s.dist.histogram.edges.every(Number.isInteger));
  const xAxis = axisBottom(x).tickFormat((v) => fmt(Number(v)));
  g.append('g')
    .attr('transform', `translate(0,${ih})`)
    .call(whole ? xAxis.tickValues(integerTicks(x, tickCount(iw, 40, 6))) : xAxis.ticks(tickCount(iw, 80, 6)));
  series.forEach((s, k) => {
    const by = ih + 34 + k * 18;
    const q = s.dist.quartiles;
    if (q) drawBox(g, x, { from: q.min, p25: q.p25, p50: q.p50, p75: q.p75, to: q.max }, by, { half: 6, cls: s.cls });
    else
      g.append('text')
        .attr('x', 4)
        .attr('y', by + 4)
        .attr('class', 'box-label muted-text')
        .text(`no ${s.label} sessions`);
    g.append('text')
      .attr('x', -M.left + 2)
      .attr('y', by + 4)
      .attr('class', 'box-label')
      .text(s.label);
  });
}

export interface SplitPart {
  label: string;
  cls: string;
  value: number;
}

/** Height of a split bar with its legend of `parts` lines (one line per part). */
export function splitBarHeight(parts: number): number {
  return Math.max(18, parts * 13) + 8;
}

/**
 * One horizontal bar split into parts (e.g. tokens: root / sub-calls / child runs), with a
 * legend to its right, one part a line with its colour: a label under the bar would stand
 * under whichever segment happens to be there, and a sliver has no room for one.
 */
export function drawSplitBar(svg: SVGSVGElement, parts: readonly SplitPart[], fmt: (v: number) => string, width: number): void {
  const total = parts.reduce((a, p) => a + p.value, 0);
  const pct = (v: number): string => `${total > 0 ? ((v / total) * 100).toFixed(0) : 0}%`;
  const root = select(svg);
  const legendG = root.append('g');
  const legend = drawLegend(
    legendG,
    parts.map((p) => ({ cls: p.cls, label: `${p.label} ${pct(p.value)} (${fmt(p.value)})` })),
    { x: 0, y: 4, maxWidth: width, direction: 'column' },
  );
  const iw = Math.max(40, width - 20 - legend.width - 16);
  legendG.select('.legend').attr('transform', `translate(${10 + iw + 16},4)`);
  const g = root.append('g').attr('transform', `translate(10,${4 + Math.max(0, (legend.height - 18) / 2)})`);
  let at = 0;
  for (const p of parts) {
    const w = total > 0 ? (p.value / total) * iw : 0;
    g.append('g')
      .attr('class', `split ${p.cls}`)
      .append('rect')
      .attr('x', at)
      .attr('width', w)
      .attr('y', 0)
      .attr('height', 18)
      .attr('class', p.cls)
      .append('title')
      .text(`${p.label}: ${fmt(p.value)} (${pct(p.value)})`);
    at += w;
  }
}
