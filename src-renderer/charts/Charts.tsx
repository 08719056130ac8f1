// Charts (d3 into SVG): cost and time per iteration and per depth; a waterfall of the
// session's calls over time with concurrency and the critical path; token growth of the
// root history with compaction marked; quartiles and histograms across loaded sessions.
// Each chart can be saved as SVG or PNG.
import {
  axisBottom,
  axisLeft,
  axisRight,
  histogram as d3hist,
  max as d3max,
  scaleBand,
  scaleLinear,
  select,
  line as d3line,
  area as d3area,
  curveStepAfter,
} from 'd3';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import type { RunId } from '../../src-shared/events.ts';
import {
  costUnknown,
  criticalPath,
  depthTotals,
  iterationTotals,
  quartiles,
  sessionTotals,
  walkRuns,
  type TrajectoryState,
} from '../../src-shared/trajectory/index.ts';
import { useStudio } from '../app/context.tsx';
import { fmtInt, fmtMs, fmtUsd } from '../lib/format.ts';
import { downloadBlob } from '../lib/download.ts';
import { viewRev, viewTraj } from '../store/studio.ts';
import { drawBox, drawLegend, drawWrappedText, formatInteger, integerTicks, tickCount } from './chart-layout.ts';
import { concurrency } from './concurrency.ts';
import { sessionSpans, waterfallCaption } from './waterfall-spans.ts';
import { useTrajectoryMemo } from '../lib/use-trajectory-memo.ts';

/** Width before the card is measured (and in jsdom); below MIN_W the card scrolls rather than squeeze the text. */
const W = 560;
const MIN_W = 280;
const H = 220;
const M = { top: 14, right: 60, bottom: 28, left: 54 };

/**
 * Draws into an emptied `svg` that is `width` wide (in pixels, so text keeps its size). A chart
 * is drawn again when its draw function changes: pass a memoised one (`useCallback` over what
 * it reads).
 */
export type Draw = (svg: SVGSVGElement, width: number) => void;

/** The content width of `ref`'s element, followed as the card resizes. */
function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(W);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const take = (px: number): void => {
      if (px > 0) setWidth(Math.max(MIN_W, Math.floor(px)));
    };
    take(el.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver((entries) => {
      for (const e of entries) take(e.contentRect.width);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return width;
}

export function ChartFrame({
  title,
  draw,
  height = H,
  testId,
  children,
  empty = null,
}: {
  title: string;
  draw: Draw;
  height?: number;
  testId: string;
  children?: ReactNode;
  /** Why there is nothing to draw, said in place of an empty box (null: draw). */
  empty?: string | null;
}) {
  const ref = useRef<SVGSVGElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const width = useWidth(body);
  useEffect(() => {
    if (ref.current) {
      select(ref.current).selectAll('*').remove();
      draw(ref.current, width);
    }
  }, [draw, width, empty]);
  if (empty !== null)
    return (
      <figure className="chart chart-empty" data-testid={testId}>
        <figcaption>{title}</figcaption>
        <p className="muted" data-testid={`${testId}-empty`}>
          {empty}
        </p>
        {children}
      </figure>
    );
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>
        {title}
        <span className="chart-actions">
          <button type="button" className="link" onClick={() => ref.current && saveSvg(ref.current, testId)}>
            SVG
          </button>
          <button type="button" className="link" onClick={() => ref.current && void savePng(ref.current, testId)}>
            PNG
          </button>
        </span>
      </figcaption>
      <div className="chart-body" ref={body}>
        <svg
          ref={ref}
          width={width}
          height={height}
          viewBox={`0 0 ${width} ${height}`}
          role="img"
          aria-label={title}
          xmlns="http://www.w3.org/2000/svg"
        />
      </div>
      {children}
    </figure>
  );
}

function serialize(svg: SVGSVGElement): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const style = getComputedStyle(document.documentElement);
  clone.setAttribute(
    'style',
    `background:${style.getPropertyValue('--bg') || '#fff'};color:${style.getPropertyValue('--fg') || '#000'};font-family:sans-serif`,
  );
  return new XMLSerializer().serializeToString(clone);
}

function saveSvg(svg: SVGSVGElement, name: string): void {
  downloadBlob(`${name}.svg`, new Blob([serialize(svg)], { type: 'image/svg+xml' }));
}

async function savePng(svg: SVGSVGElement, name: string): Promise<void> {
  const url = URL.createObjectURL(new Blob([serialize(svg)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise<void>((res, rej) => {
      img.onload = () => res();
      img.onerror = () => rej(new Error('could not render the chart'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    const w = Number(svg.getAttribute('width'));
    const h = Number(svg.getAttribute('height'));
    canvas.width = w * 2;
    canvas.height = h * 2;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--bg') || '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((r) => canvas.toBlob(r, 'image/png'));
    if (blob) downloadBlob(`${name}.png`, blob);
  } finally {
    URL.revokeObjectURL(url);
  }
}

interface Bar {
  label: string;
  a: number;
  b: number;
  /** `a` is not known (a cost when no call had a price): no bar, and no scale when no bar has one. */
  aUnknown?: boolean;
}

/**
 * Two measures side by side per category (cost on the left axis scale, time on its own), with
 * their legend above the plot so that it covers neither bars nor axes.
 */
export function drawBars(
  svg: SVGSVGElement,
  bars: Bar[],
  aName: string,
  bName: string,
  fa: (v: number) => string,
  fb: (v: number) => string,
  width: number,
): void {
  const root = select(svg);
  const noA = bars.length > 0 && bars.every((d) => d.aUnknown === true);
  const legend = drawLegend(
    root.append('g'),
    [
      { cls: 'bar-a', label: noA ? `${aName} unknown (no call had a price)` : `${aName} (left scale)` },
      { cls: 'bar-b', label: `${bName} (right scale)` },
    ],
    { x: M.left, y: 4, maxWidth: width - M.left - M.right, direction: 'row' },
  );
  // Room for the top tick labels, which stand half a line above the plot.
  const top = 4 + legend.height + 12;
  const g = root.append('g').attr('class', 'plot').attr('transform', `translate(${M.left},${top})`);
  const iw = width - M.left - M.right;
  const ih = H - top - M.bottom;
  const x = scaleBand<string>()
    .domain(bars.map((d) => d.label))
    .range([0, iw])
    .padding(0.2);
  const ya = scaleLinear()
    .domain([0, d3max(bars, (d) => d.a) || 1])
    .nice()
    .range([ih, 0]);
  const yb = scaleLinear()
    .domain([0, d3max(bars, (d) => d.b) || 1])
    .nice()
    .range([ih, 0]);
  const bw = x.bandwidth() / 2;
  g.append('g')
    .attr('transform', `translate(0,${ih})`)
    .call(axisBottom(x).tickValues(x.domain().filter((_, i) => i % Math.ceil(bars.length / 20) === 0)));
  const left = axisLeft(ya).tickFormat((v) => fa(Number(v)));
  g.append('g').call(noA ? left.tickValues([]) : left.ticks(5));
  g.append('g')
    .attr('transform', `translate(${iw},0)`)
    .call(
      axisRight(yb)
        .ticks(5)
        .tickFormat((v) => fb(Number(v))),
    );
  g.selectAll('rect.bar-a')
    .data(bars)
    .join('rect')
    .attr('class', 'bar-a')
    .attr('x', (d) => x(d.label) ?? 0)
    .attr('width', bw)
    .attr('y', (d) => (d.aUnknown ? ih : ya(d.a)))
    .attr('height', (d) => (d.aUnknown ? 0 : ih - ya(d.a)))
    .append('title')
    .text((d) => `${d.label}: ${aName} ${d.aUnknown ? 'unknown' : fa(d.a)}`);
  g.selectAll('rect.bar-b')
    .data(bars)
    .join('rect')
    .attr('class', 'bar-b')
    .attr('x', (d) => (x(d.label) ?? 0) + bw)
    .attr('width', bw)
    .attr('y', (d) => yb(d.b))
    .attr('height', (d) => ih - yb(d.b))
    .append('title')
    .text((d) => `${d.label}: ${bName} ${fb(d.b)}`);
}

function Waterfall({ traj, rev, untimed }: { traj: TrajectoryState; rev: number; untimed: boolean }) {
  const data = useTrajectoryMemo(
    traj,
    rev,
    (traj) => {
      const { spans, total } = sessionSpans(traj);
      spans.sort((a, b) => a.start - b.start);
      const root = traj.roots[0];
      const crit = new Set<string>();
      if (root)
        for (const s of criticalPath(traj, root))
          crit.add(
            s.kind === 'model'
              ? `m:${s.runId}:${s.iteration}`
              : s.kind === 'block'
                ? `b:${s.runId}:${s.iteration}:${s.block}`
                : `c:${s.callId}`,
          );
      // Concurrency: model and plain calls in flight over time.
      const conc = concurrency(spans.filter((s) => s.kind !== 'block'));
      const cmax = d3max(conc, (c) => c.n) ?? 1;
      return { spans, crit, conc, cmax, caption: waterfallCaption(spans.length, total, cmax, untimed) };
    },
    [untimed],
  );
  const rowH = 5;
  const height = Math.min(900, M.top + M.bottom + 70 + data.spans.length * rowH);
  const draw = useCallback<Draw>(
    (svg, width) => {
      const g = select(svg).append('g').attr('transform', `translate(${M.left},${M.top})`);
      const iw = width - M.left - M.right;
      const tMax = d3max(data.spans, (s) => s.end) ?? 1;
      const x = scaleLinear()
        .domain([0, tMax || 1])
        .range([0, iw]);
      // Without recorded start times the curve would only show the end-to-end placement.
      if (!untimed) {
        const yc = scaleLinear()
          .domain([0, data.cmax || 1])
          .range([50, 0]);
        g.append('path')
          .datum(data.conc)
          .attr('class', 'conc')
          .attr(
            'd',
            d3area<{ t: number; n: number }>()
              .x((d) => x(d.t))
              .y0(50)
              .y1((d) => yc(d.n))
              .curve(curveStepAfter),
          );
        g.append('g').call(axisLeft(yc).tickValues(integerTicks(yc, 2)).tickFormat(formatInteger));
      }
      g.append('text').attr('x', 4).attr('y', 10).attr('class', 'muted-text in-flight').text(data.caption.inFlight);
      const rows = g.append('g').attr('transform', 'translate(0,60)');
      const avail = height - M.top - M.bottom - 60;
      const rh = Math.max(1, Math.min(rowH, avail / Math.max(1, data.spans.length)));
      rows
        .selectAll('rect')
        .data(data.spans)
        .join('rect')
        .attr('class', (s) => `span span-${s.kind}${data.crit.has(s.key) ? ' crit' : ''}`)
        .attr('x', (s) => x(s.start))
        .attr('width', (s) => Math.max(1, x(s.end) - x(s.start)))
        .attr('y', (_, i) => i * rh)
        .attr('height', Math.max(1, rh - 1))
        .append('title')
        .text((s) => `${s.label}: ${fmtMs(s.end - s.start)}${s.kind === 'llm' ? data.caption.callNote : ''}`);
      g.append('g')
        .attr('transform', `translate(0,${height - M.top - M.bottom})`)
        .call(
          axisBottom(x)
            .ticks(tickCount(iw, 90, 6))
            .tickFormat((v) => fmtMs(Number(v))),
        );
    },
    [data, untimed, height],
  );
  return <ChartFrame title={data.caption.title} testId="chart-waterfall" height={height} draw={draw} />;
}

interface TokenPoint {
  it: number;
  tokens: number;
  compacted: boolean;
}

/** History tokens (left) per iteration (bottom), compactions marked with a diamond. */
export function drawTokenGrowth(svg: SVGSVGElement, pts: readonly TokenPoint[], width: number): void {
  const g = select(svg).append('g').attr('transform', `translate(${M.left},${M.top})`);
  const iw = width - M.left - M.right;
  const ih = H - M.top - M.bottom;
  const x = scaleLinear()
    .domain([1, Math.max(2, d3max(pts, (p) => p.it) ?? 2)])
    .range([0, iw]);
  const y = scaleLinear()
    .domain([0, d3max(pts, (p) => p.tokens) || 1])
    .nice()
    .range([ih, 0]);
  g.append('g')
    .attr('transform', `translate(0,${ih})`)
    .call(
      axisBottom(x)
        .tickValues(integerTicks(x, tickCount(iw, 40, 10)))
        .tickFormat(formatInteger),
    );
  g.append('g').call(axisLeft(y).tickValues(integerTicks(y, 5)).tickFormat(formatInteger));
  g.append('path')
    .datum(pts)
    .attr('class', 'line')
    .attr(
      'd',
      d3line<TokenPoint>()
        .x((p) => x(p.it))
        .y((p) => y(p.tokens)),
    );
  g.selectAll('circle')
    .data(pts)
    .join('circle')
    .attr('cx', (p) => x(p.it))
    .attr('cy', (p) => y(p.tokens))
    .attr('r', 3)
    .attr('class', 'pt');
  g.selectAll('path.compact')
    .data(pts.filter((p) => p.compacted))
    .join('path')
    .attr('class', 'compact')
    .attr('d', 'M0,-6L6,0L0,6L-6,0Z')
    .attr('transform', (p) => `translate(${x(p.it)},${y(p.tokens)})`);
}

function TokenGrowth({ traj, rev }: { traj: TrajectoryState; rev: number }) {
  const pts = useTrajectoryMemo(traj, rev, (traj): TokenPoint[] => {
    const root = traj.roots[0] ? traj.runs.get(traj.roots[0]) : undefined;
    if (!root) return [];
    return root.iterations
      .filter((i) => i.start)
      .map((i) => ({ it: i.iteration, tokens: i.start?.historyTokens ?? 0, compacted: i.compaction !== null }));
  });
  const draw = useCallback<Draw>((svg, width) => drawTokenGrowth(svg, pts, width), [pts]);
  return <ChartFrame title="Root history tokens per iteration (◆ compaction)" testId="chart-tokens" draw={draw} />;
}

/**
 * A histogram of `values` with a box below it (p25–p75, median, whisker from min to p95) and
 * the quartiles written out on lines above the plot, wrapped to the chart's width, where
 * they can neither hide under the bars nor run off the edge; the cross-session charts and
 * the Evaluation view share it.
 */
export function drawDistribution(svg: SVGSVGElement, values: readonly number[], fmt: (v: number) => string, width: number): void {
  if (values.length === 0) return;
  const root = select(svg);
  const q = quartiles(values);
  const p95 = q.p95;
  const summary = drawWrappedText(
    root.append('g'),
    [`n=${values.length}`, `p25 ${fmt(q.p25)}`, `p50 ${fmt(q.p50)}`, `p75 ${fmt(q.p75)}`, `p95 ${fmt(p95)}`],
    { x: 8, y: 4, maxWidth: width - 16, cls: 'quartiles muted-text' },
  );
  // Room for the top tick label, which stands half a line above the plot.
  const top = 4 + summary + 8;
  const g = root.append('g').attr('class', 'plot').attr('transform', `translate(${M.left},${top})`);
  const iw = width - M.left - M.right;
  const ih = H - top - M.bottom - 40;
  const x = scaleLinear()
    .domain([0, d3max(values) || 1])
    .nice()
    .range([0, iw]);
  const bins = d3hist()
    .domain(x.domain() as [number, number])
    .thresholds(20)([...values]);
  const y = scaleLinear()
    .domain([0, d3max(bins, (b) => b.length) || 1])
    .range([ih, 0]);
  g.selectAll('rect')
    .data(bins)
    .join('rect')
    .attr('class', 'bar-a')
    .attr('x', (b) => x(b.x0 ?? 0))
    .attr('width', (b) => Math.max(1, x(b.x1 ?? 0) - x(b.x0 ?? 0) - 1))
    .attr('y', (b) => y(b.length))
    .attr('height', (b) => ih - y(b.length));
  g.append('g').call(axisLeft(y).tickValues(integerTicks(y, 4)).tickFormat(formatInteger));
  drawBox(g, x, { from: q.min, p25: q.p25, p50: q.p50, p75: q.p75, to: p95 }, ih + 20, { half: 7, endTick: true });
  g.append('g')
    .attr('transform', `translate(0,${ih + 32})`)
    .call(
      axisBottom(x)
        .ticks(tickCount(iw, 80, 5))
        .tickFormat((v) => fmt(Number(v))),
    );
}

function CrossSession() {
  const sessions = useStudio((s) => s.sessions);
  const data = useMemo(() => {
    const cost: number[] = [];
    const wall: number[] = [];
    let unpriced = 0;
    for (const e of sessions.values())
      for (const t of sessionTotals(e.traj)) {
        // A session with no price is unknown, not $0: left out of the cost distribution.
        if (costUnknown(t)) unpriced++;
        else cost.push(t.costUsd);
        wall.push(t.wallMs);
      }
    return { cost, wall, unpriced };
  }, [sessions]);
  const drawCost = useCallback<Draw>((svg, width) => drawDistribution(svg, data.cost, fmtUsd, width), [data]);
  const drawWall = useCallback<Draw>((svg, width) => drawDistribution(svg, data.wall, fmtMs, width), [data]);
  return (
    <>
      <ChartFrame
        title={`Across loaded sessions: cost${data.unpriced > 0 && data.cost.length > 0 ? `, of the ${data.cost.length} with a price` : ''} (histogram; box = p25–p75, median, whisker to p95)`}
        testId="chart-cross-cost"
        draw={drawCost}
        empty={data.cost.length === 0 ? 'No loaded session recorded a price: their cost is unknown.' : null}
      />
      <ChartFrame title="Across loaded sessions: runtime" testId="chart-cross-time" draw={drawWall} />
    </>
  );
}

export function ChartsView({ sessionId }: { sessionId: string }) {
  const rev = useStudio((s) => viewRev(s, sessionId));
  const traj = useStudio((s) => viewTraj(s, sessionId));
  const selRun = useStudio((s) => s.selection.get(sessionId)?.runId ?? null);
  // The reference library's log keeps sub-calls' durations, not their start times.
  const untimed = useStudio((s) => {
    const e = s.sessions.get(sessionId);
    return (e?.summary?.format ?? e?.format) === 'rlm-python';
  });
  const perIt = useTrajectoryMemo(
    traj,
    rev,
    (traj) => {
      if (!traj) return [];
      const run = traj.runs.get(selRun ?? traj.roots[0] ?? ('' as RunId));
      if (!run) return [];
      return run.iterations.map((it) => {
        const t = iterationTotals(traj, it);
        return { label: String(it.iteration), a: t.costUsd, b: it.lastT - it.firstT, aUnknown: costUnknown(t), totals: t };
      });
    },
    [selRun],
  );
  // The share of each iteration's input the provider served from its prompt cache (its calls and sub-calls together).
  const cachedPerIt = useMemo(
    () =>
      perIt.some((d) => d.totals.cachedInputTokens > 0)
        ? perIt.map((d) => ({
            label: d.label,
            a: d.totals.inputTokens > 0 ? (100 * d.totals.cachedInputTokens) / d.totals.inputTokens : 0,
            b: d.totals.inputTokens,
          }))
        : [],
    [perIt],
  );
  const perDepth = useTrajectoryMemo(traj, rev, (traj) => {
    if (!traj) return [];
    const wall = new Map<number, number>();
    for (const r of walkRuns(traj)) wall.set(r.depth, (wall.get(r.depth) ?? 0) + (r.end?.durationMs ?? r.lastT - r.firstT));
    return depthTotals(traj).map((d) => ({ label: `depth ${d.depth}`, a: d.costUsd, b: wall.get(d.depth) ?? 0, aUnknown: costUnknown(d) }));
  });
  const drawPerIt = useCallback<Draw>((svg, w) => drawBars(svg, perIt, 'cost', 'time', fmtUsd, fmtMs, w), [perIt]);
  const drawCached = useCallback<Draw>(
    (svg, w) => drawBars(svg, cachedPerIt, 'cached share', 'input tokens', (v) => `${Math.round(v)}%`, fmtInt, w),
    [cachedPerIt],
  );
  const drawPerDepth = useCallback<Draw>((svg, w) => drawBars(svg, perDepth, 'cost', 'time', fmtUsd, fmtMs, w), [perDepth]);
  if (!traj) return null;
  return (
    <div className="charts" data-testid="charts">
      <ChartFrame title={`Cost and time per iteration (run ${selRun ?? traj.roots[0] ?? ''})`} testId="chart-iterations" draw={drawPerIt} />
      {cachedPerIt.length > 0 ? (
        <ChartFrame
          title={`Cache hits per iteration: share of input tokens served from the provider's cache (run ${selRun ?? traj.roots[0] ?? ''})`}
          testId="chart-cache-hits"
          draw={drawCached}
        />
      ) : null}
      <ChartFrame title="Cost and time per depth (runs' own work)" testId="chart-depth" draw={drawPerDepth} />
      <Waterfall traj={traj} rev={rev} untimed={untimed} />
      <TokenGrowth traj={traj} rev={rev} />
      <CrossSession />
    </div>
  );
}
