// The cost–accuracy frontier of a sweep, drawn with d3: one point per configuration (cost per
// task against accuracy, both from the sweep's summary), labelled with its number in the grid;
// the Pareto front's points filled and joined by a step line.
import { axisBottom, axisLeft, scaleLinear, select } from 'd3';
import type { SweepConfigFigures } from '../../../src-shared/analysis/sweep.ts';
import { fmtUsd } from '../../lib/format.ts';
import { tickCount } from '../../charts/chart-layout.ts';

export const FRONTIER_H = 320;
const M = { top: 16, right: 24, bottom: 40, left: 54 };

interface Spot {
  dx: number;
  dy: number;
  anchor: 'start' | 'end';
}

/** Where each point's label goes: above right, else below right, above left, below left — the first that overlaps no label placed before. */
function labelSpots(points: readonly { x: number; y: number; text: string }[]): Spot[] {
  const CANDIDATES: Spot[] = [
    { dx: 7, dy: -7, anchor: 'start' },
    { dx: 7, dy: 15, anchor: 'start' },
    { dx: -7, dy: -7, anchor: 'end' },
    { dx: -7, dy: 15, anchor: 'end' },
  ];
  const placed: { x0: number; x1: number; y0: number; y1: number }[] = [];
  return points.map((p) => {
    const w = 7 * p.text.length;
    const boxOf = (s: Spot) => {
      const x0 = s.anchor === 'start' ? p.x + s.dx : p.x + s.dx - w;
      return { x0, x1: x0 + w, y0: p.y + s.dy - 10, y1: p.y + s.dy + 2 };
    };
    const free = CANDIDATES.find((s) => {
      const b = boxOf(s);
      return !placed.some((q) => b.x0 < q.x1 && q.x0 < b.x1 && b.y0 < q.y1 && q.y0 < b.y1);
    });
    const spot = free ?? CANDIDATES[0]!;
    placed.push(boxOf(spot));
    return spot;
  });
}

export function drawFrontier(svg: SVGSVGElement, configs: readonly SweepConfigFigures[], width: number): void {
  const points = configs
    .map((c, i) => ({ c, n: i + 1 }))
    .filter(
      (p): p is { c: SweepConfigFigures & { costPerTask: number; accuracy: number }; n: number } =>
        p.c.costPerTask !== null && p.c.accuracy !== null,
    );
  if (points.length === 0) return;
  const root = select(svg);
  const g = root.append('g').attr('class', 'plot').attr('transform', `translate(${M.left},${M.top})`);
  const iw = Math.max(40, width - M.left - M.right);
  const ih = FRONTIER_H - M.top - M.bottom;
  const costs = points.map((p) => p.c.costPerTask);
  const lo = Math.min(...costs);
  const hi = Math.max(...costs);
  // Room on both sides, so the cheapest and costliest points are not on the axes.
  const pad = hi > lo ? (hi - lo) * 0.08 : Math.max(hi * 0.1, 1e-6);
  const x = scaleLinear()
    .domain([Math.max(0, lo - pad), hi + pad])
    .nice()
    .range([0, iw]);
  const y = scaleLinear().domain([0, 1]).range([ih, 0]);
  g.append('g')
    .attr('transform', `translate(0,${ih})`)
    .call(
      axisBottom(x)
        .ticks(tickCount(iw, 90, 6))
        .tickFormat((v) => fmtUsd(Number(v))),
    );
  g.append('g').call(
    axisLeft(y)
      .ticks(5)
      .tickFormat((v) => `${Math.round(Number(v) * 100)}%`),
  );
  g.append('text')
    .attr('class', 'axis-label')
    .attr('x', iw / 2)
    .attr('y', ih + 34)
    .attr('text-anchor', 'middle')
    .attr('fill', 'currentColor')
    .text('cost per task (USD)');
  g.append('text')
    .attr('class', 'axis-label')
    .attr('transform', `translate(${-40},${ih / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .attr('fill', 'currentColor')
    .text('accuracy');
  const front = points.filter((p) => p.c.pareto).sort((p, q) => p.c.costPerTask - q.c.costPerTask);
  if (front.length > 1) {
    // A step line: from each front point, right at its accuracy to the next one's cost, then up.
    let d = `M${x(front[0]!.c.costPerTask)},${y(front[0]!.c.accuracy)}`;
    for (const p of front.slice(1)) d += `H${x(p.c.costPerTask)}V${y(p.c.accuracy)}`;
    g.append('path')
      .attr('data-testid', 'frontier-line')
      .attr('d', d)
      .attr('fill', 'none')
      .attr('stroke', 'var(--accent)')
      .attr('stroke-width', 1.5);
  }
  const dot = g
    .selectAll('g.sweep-point')
    .data(points)
    .join('g')
    .attr('class', (p) => `sweep-point${p.c.pareto ? ' pareto' : ''}`)
    .attr('data-testid', (p) => `frontier-point-${p.c.id}`)
    .attr('data-pareto', (p) => String(p.c.pareto))
    .attr('transform', (p) => `translate(${x(p.c.costPerTask)},${y(p.c.accuracy)})`);
  dot
    .append('circle')
    .attr('r', 5)
    .attr('fill', (p) => (p.c.pareto ? 'var(--accent)' : 'var(--bg)'))
    .attr('stroke', (p) => (p.c.pareto ? 'var(--accent)' : 'var(--muted)'))
    .attr('stroke-width', 1.5);
  const spots = labelSpots(points.map((p) => ({ x: x(p.c.costPerTask), y: y(p.c.accuracy), text: `#${p.n}` })));
  dot
    .append('text')
    .attr('x', (_, i) => spots[i]!.dx)
    .attr('y', (_, i) => spots[i]!.dy)
    .attr('text-anchor', (_, i) => spots[i]!.anchor)
    .attr('font-size', 11)
    .attr('fill', 'currentColor')
    .text((p) => `#${p.n}`);
  dot
    .append('title')
    .text(
      (p) =>
        `#${p.n} ${p.c.name}: ${(p.c.accuracy * 100).toFixed(1)}%, ${fmtUsd(p.c.costPerTask)} per task${p.c.pareto ? ' (Pareto front)' : ''}`,
    );
}
