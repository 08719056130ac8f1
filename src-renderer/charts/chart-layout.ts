// Layout helpers the chart drawings share: integer-only axis ticks, text widths, legends
// laid out outside the plot area, a line of text wrapped to the width it has, and box plots.
import { format, type ScaleLinear, type Selection } from 'd3';

type G = Selection<SVGGElement, unknown, null, undefined>;

/** The chart's font size is 10px (styles.css); a wide sans-serif character is about this wide. */
const CHAR_W = 6.5;

/** Ticks of a scale of whole things (counts, iterations): never 0.5 of a call. */
export function integerTicks(scale: ScaleLinear<number, number>, count: number): number[] {
  const [lo = 0, hi = 0] = scale.domain();
  const span = Math.max(1, Math.floor(Math.abs(hi - lo)));
  return scale.ticks(Math.min(count, span)).filter(Number.isInteger);
}

export const formatInteger = format(',d');

/** How many labels of about `labelWidth` px fit along `length` px of a horizontal axis. */
export function tickCount(length: number, labelWidth: number, most: number): number {
  return Math.max(2, Math.min(most, Math.floor(length / labelWidth)));
}

/**
 * Width of a text element: measured where the browser lays it out, estimated where it does
 * not (jsdom, or a chart inside a closed section), generously so that nothing is cut.
 */
function textWidth(node: SVGTextElement | null): number {
  if (!node) return 0;
  const measured = typeof node.getComputedTextLength === 'function' ? node.getComputedTextLength() : 0;
  return measured > 0 ? measured : (node.textContent ?? '').length * CHAR_W;
}

interface LegendItem {
  cls: string;
  label: string;
}

const SWATCH = 10;
const ROW = 13;

/**
 * A legend (swatch, then its label) at `x`,`y` of `parent`: in rows wrapped to `maxWidth`, or
 * one item per line. Returns its width and height so the caller can keep the plot clear of it.
 */
export function drawLegend(
  parent: G,
  items: readonly LegendItem[],
  at: { x: number; y: number; maxWidth: number; direction: 'row' | 'column' },
): { width: number; height: number } {
  const legend = parent.append('g').attr('class', 'legend').attr('transform', `translate(${at.x},${at.y})`);
  let cx = 0;
  let line = 0;
  let width = 0;
  items.forEach((it, i) => {
    const item = legend.append('g').attr('class', 'legend-item');
    item.append('rect').attr('class', it.cls).attr('width', SWATCH).attr('height', SWATCH);
    const text = item
      .append('text')
      .attr('x', SWATCH + 4)
      .attr('y', SWATCH - 1)
      .text(it.label);
    const w = SWATCH + 4 + textWidth(text.node());
    if (at.direction === 'column') {
      if (i > 0) line += 1;
      cx = 0;
    } else if (cx > 0 && cx + w > at.maxWidth) {
      line += 1;
      cx = 0;
    }
    item.attr('transform', `translate(${cx},${line * ROW})`);
    width = Math.max(width, cx + w);
    cx += w + 12;
  });
  return { width, height: items.length === 0 ? 0 : (line + 1) * ROW - (ROW - SWATCH) };
}

/**
 * `parts` as lines of text at `x`,`y` of `parent`, joined with " · " and broken between
 * parts so that no line is wider than `maxWidth`. Returns the height taken.
 */
export function drawWrappedText(parent: G, parts: readonly string[], at: { x: number; y: number; maxWidth: number; cls: string }): number {
  const block = parent.append('g').attr('class', at.cls).attr('transform', `translate(${at.x},${at.y})`);
  let line = 0;
  // Baselines one font height below each line's top, so the block starts at `y`.
  let text = block.append('text').attr('y', 10);
  let content = '';
  for (const p of parts) {
    const next = content ? `${content} · ${p}` : p;
    text.text(next);
    if (content && textWidth(text.node()) > at.maxWidth) {
      text.text(content);
      line += 1;
      text = block
        .append('text')
        .attr('y', 10 + line * ROW)
        .text(p);
      content = p;
    } else content = next;
  }
  return (line + 1) * ROW;
}

/** A box plot's figures: the whisker's ends, the box's edges and its median. */
export interface BoxFigures {
  from: number;
  p25: number;
  p50: number;
  p75: number;
  to: number;
}

/**
 * A horizontal box plot centred on `y`: the whisker from `from` to `to`, the box from p25 to
 * p75 `2 × half` px tall, the median across it; `endTick` marks the whisker's end when it is not
 * the maximum (a p95).
 */
export function drawBox(
  g: G,
  x: (v: number) => number,
  b: BoxFigures,
  y: number,
  o: { half: number; cls?: string; endTick?: boolean },
): void {
  const box = g.append('g').attr('class', o.cls ? `box ${o.cls}` : 'box');
  box.append('line').attr('x1', x(b.from)).attr('x2', x(b.to)).attr('y1', y).attr('y2', y);
  box
    .append('rect')
    .attr('x', x(b.p25))
    .attr('width', Math.max(1, x(b.p75) - x(b.p25)))
    .attr('y', y - o.half)
    .attr('height', 2 * o.half);
  box
    .append('line')
    .attr('x1', x(b.p50))
    .attr('x2', x(b.p50))
    .attr('y1', y - o.half)
    .attr('y2', y + o.half)
    .attr('class', 'median');
  if (o.endTick)
    box
      .append('line')
      .attr('x1', x(b.to))
      .attr('x2', x(b.to))
      .attr('y1', y - 5)
      .attr('y2', y + 5);
}
