// Chart layout, checked on the SVG the drawing functions produce: legends and the quartile
// summary outside the plot area, whole-number ticks on axes of whole things, charts as wide
// as their card, and the split bar's labels tied to their segments by colour.
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FigureDistribution } from '../../../src-shared/analysis/policy-aggregate.ts';
import { histogram, quartiles } from '../../../src-shared/trajectory/distributions.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { ChartFrame, drawBars, drawDistribution, drawTokenGrowth } from '../../../src-renderer/charts/Charts.tsx';
import { drawHistograms, drawSplitBar } from '../../../src-renderer/charts/policy-charts.ts';
import { sessionSpans, waterfallCaption } from '../../../src-renderer/charts/waterfall-spans.ts';
import { fmtMs, fmtUsd } from '../../../src-renderer/lib/format.ts';
import { fixtureEvents, servicesWith } from './helpers.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';

function newSvg(width: number, height: number): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  document.body.append(svg);
  return svg;
}

afterEach(() => {
  document.body.innerHTML = '';
  vi.unstubAllGlobals();
});

function translate(el: Element): [number, number] {
  const m = /translate\(\s*([-\d.e]+)[ ,]+([-\d.e]+)\s*\)/.exec(el.getAttribute('transform') ?? '');
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}

/** Where `el`'s own origin lies in the SVG: the sum of its and its ancestors' translations. */
function origin(el: Element): [number, number] {
  let x = 0;
  let y = 0;
  for (let e: Element | null = el; e && e.tagName.toLowerCase() !== 'svg'; e = e.parentElement) {
    const [dx, dy] = translate(e);
    x += dx;
    y += dy;
  }
  return [x, y];
}

const num = (el: Element, attr: string): number => Number(el.getAttribute(attr) ?? 0);

/** The tick labels of each axis within `root`, in drawing order. */
function axisLabels(root: Element): string[][] {
  return [...root.querySelectorAll('g')]
    .filter((c) => c.querySelector(':scope > .tick'))
    .map((axis) => [...axis.querySelectorAll('.tick text')].map((t) => t.textContent ?? ''));
}

const isWhole = (s: string): boolean => /^-?[\d,]+$/.test(s);

describe('paired bars (cost and time)', () => {
  it('draws the legend above the plot, clear of bars and axes', () => {
    const svg = newSvg(560, 220);
    const bars = [1, 2, 3, 4].map((i) => ({ label: String(i), a: i * 0.2, b: i * 300 }));
    drawBars(svg, bars, 'cost', 'time', fmtUsd, fmtMs, 560);
    const legend = svg.querySelector('.legend')!;
    const plot = svg.querySelector('g.plot')!;
    expect(legend).toBeTruthy();
    expect(plot.contains(legend)).toBe(false);
    const legendBottom = Math.max(...[...legend.querySelectorAll('.legend-item')].map((i) => origin(i)[1] + 10));
    // The highest tick label is centred on the plot's top edge, half a line (about 6 px) above it.
    expect(legendBottom).toBeLessThanOrEqual(origin(plot)[1] - 6);
    const swatches = [...legend.querySelectorAll('rect')].map((r) => r.getAttribute('class'));
    expect(swatches).toEqual(['bar-a', 'bar-b']);
    expect(legend.textContent).toContain('time (right scale)');
  });

  it('draws no cost scale and no cost bars when no call had a price, and says so', () => {
    const svg = newSvg(560, 220);
    const bars = [1, 2, 3].map((i) => ({ label: String(i), a: 0, b: i * 0.3, aUnknown: true }));
    drawBars(svg, bars, 'cost', 'time', fmtUsd, fmtMs, 560);
    expect(svg.querySelector('.legend')!.textContent).toContain('cost unknown (no call had a price)');
    const ticks = [...svg.querySelectorAll('g.plot .tick text')].map((t) => t.textContent ?? '');
    expect(ticks.filter((t) => t.startsWith('$'))).toEqual([]);
    expect(ticks).toEqual(['1', '2', '3', '0 ms', '0.2 ms', '0.4 ms', '0.6 ms', '0.8 ms']);
    expect([...svg.querySelectorAll('g.plot rect.bar-a')].map((r) => r.getAttribute('height'))).toEqual(['0', '0', '0']);
    expect(svg.querySelector('g.plot rect.bar-a title')!.textContent).toBe('1: cost unknown');
  });
});

describe('distribution (histogram, box and quartiles)', () => {
  it('writes the quartiles above the plot, wrapped so that no line runs off a narrow chart', () => {
    const width = 280;
    const svg = newSvg(width, 220);
    const values = [0.0123, 0.0456, 0.0789, 0.1234, 1.2345];
    const fmt = (v: number): string => `$${v.toFixed(5)}`;
    drawDistribution(svg, values, fmt, width);
    const plot = svg.querySelector('g.plot')!;
    const lines = [...svg.querySelectorAll('.quartiles text')];
    expect(lines.length).toBeGreaterThan(1);
    const all = lines.map((l) => l.textContent).join(' · ');
    const q = quartiles(values);
    expect(all).toBe(`n=5 · p25 ${fmt(q.p25)} · p50 ${fmt(q.p50)} · p75 ${fmt(q.p75)} · p95 ${fmt(q.p95)}`);
    for (const l of lines) {
      expect(plot.contains(l)).toBe(false);
      const [x, y] = origin(l.parentElement!);
      // Below the top of the chart, above the plot (and its top tick label), within the width.
      expect(y + num(l, 'y') - 10).toBeGreaterThanOrEqual(0);
      expect(y + num(l, 'y')).toBeLessThanOrEqual(origin(plot)[1] - 6);
      expect(x + (l.textContent ?? '').length * 6).toBeLessThanOrEqual(width);
    }
  });

  it('counts sessions in whole numbers', () => {
    const svg = newSvg(560, 220);
    drawDistribution(svg, [0.5], fmtUsd, 560);
    const [counts] = axisLabels(svg);
    expect(counts).toEqual(['0', '1']);
  });
});

describe('axes of whole things', () => {
  it('numbers iterations and tokens in whole numbers', () => {
    const svg = newSvg(560, 220);
    drawTokenGrowth(
      svg,
      [
        { it: 1, tokens: 3, compacted: false },
        { it: 2, tokens: 4, compacted: true },
      ],
      560,
    );
    const [iterations, tokens] = axisLabels(svg);
    expect(iterations).toEqual(['1', '2']);
    expect(tokens!.length).toBeGreaterThan(1);
    expect(tokens!.every(isWhole)).toBe(true);
  });

  it('counts sessions per bin, and a whole-number figure, in whole numbers', () => {
    const svg = newSvg(560, 240);
    const values = [0, 1];
    const dist: FigureDistribution = { quartiles: quartiles(values), histogram: histogram(values, 2, { min: 0, max: 2 }) };
    drawHistograms(svg, [{ label: 'all', cls: 'bar-a', dist }], 240, String, 560);
    const [counts, figure] = axisLabels(svg);
    expect(counts).toEqual(['0', '1']);
    expect(figure).toEqual(['0', '1', '2']);
  });

  it('counts the calls in flight of the waterfall in whole numbers', () => {
    const { store, svc } = servicesWith(fixtureEvents('c_recursive.jsonl'));
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    act(() => store.getState().setPanel('charts'));
    const [inFlight] = axisLabels(screen.getByTestId('chart-waterfall'));
    expect(inFlight!.length).toBeGreaterThan(1);
    expect(inFlight!.every(isWhole)).toBe(true);
  });
});

describe('chart width', () => {
  it('draws as wide as its card, follows the card as it resizes, and keeps a minimum width', () => {
    let resized: ((entries: { contentRect: { width: number } }[]) => void) | null = null;
    vi.stubGlobal(
      'ResizeObserver',
      class {
        constructor(cb: (entries: { contentRect: { width: number } }[]) => void) {
          resized = cb;
        }
        observe(): void {}
        disconnect(): void {}
      },
    );
    const widths: number[] = [];
    render(<ChartFrame title="t" testId="c" draw={(_svg, w) => widths.push(w)} />);
    const svg = screen.getByTestId('c').querySelector('svg')!;
    // The test setup gives every element a 1000 px box.
    expect(svg.getAttribute('width')).toBe('1000');
    expect(svg.getAttribute('viewBox')).toBe('0 0 1000 220');
    act(() => resized?.([{ contentRect: { width: 742.6 } }]));
    expect(svg.getAttribute('width')).toBe('742');
    act(() => resized?.([{ contentRect: { width: 120 } }]));
    expect(svg.getAttribute('width')).toBe('280');
    expect(widths.at(-1)).toBe(280);
    expect(widths).toContain(742);
  });
});

describe('split bar', () => {
  it('names each part beside a swatch of its colour, and no label stands under a segment', () => {
    const width = 560;
    const svg = newSvg(width, 47);
    const parts = [
      { label: 'root', cls: 'bar-a', value: 0 },
      { label: 'sub-calls', cls: 'bar-b', value: 23 },
      { label: 'child runs', cls: 'bar-c', value: 77 },
    ];
    drawSplitBar(svg, parts, String, width);
    const items = [...svg.querySelectorAll('.legend-item')];
    expect(items.map((i) => [i.querySelector('rect')!.getAttribute('class'), i.querySelector('text')!.textContent])).toEqual([
      ['bar-a', 'root 0% (0)'],
      ['bar-b', 'sub-calls 23% (23)'],
      ['bar-c', 'child runs 77% (77)'],
    ]);
    const segments = [...svg.querySelectorAll('g.split rect')];
    expect(segments.map((s) => s.getAttribute('class'))).toEqual(['bar-a', 'bar-b', 'bar-c']);
    const barEnd = Math.max(...segments.map((s) => origin(s.parentElement!)[0] + num(s, 'x') + num(s, 'width')));
    expect(barEnd).toBeGreaterThan(width / 2);
    for (const t of svg.querySelectorAll('text')) {
      const x = origin(t.parentElement!)[0] + num(t, 'x');
      expect(x).toBeGreaterThan(barEnd);
      expect(x + (t.textContent ?? '').length * 6).toBeLessThanOrEqual(width);
    }
  });
});

describe('waterfall of a log without sub-call start times', () => {
  function renderCharts(file: string, format: 'rlm-python' | 'native') {
    const { store, svc } = servicesWith(fixtureEvents(file));
    store.getState().setFormat('s1', format);
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    act(() => store.getState().setPanel('charts'));
    return screen.getByTestId('chart-waterfall');
  }

  it('says timing was not recorded instead of "max 1 in flight" for batched calls laid end to end', () => {
    const chart = renderCharts('b_aggregate.jsonl', 'rlm-python');
    expect(chart.querySelector('.in-flight')?.textContent).toBe('calls in flight unknown: sub-call timing not recorded');
    expect(chart.querySelector('path.conc')).toBeNull();
    expect(chart.querySelector('figcaption')?.textContent).toContain('sub-call start times not recorded');
    const tips = [...chart.querySelectorAll('rect.span-llm title')].map((t) => t.textContent ?? '');
    expect(tips.length).toBe(8);
    expect(tips.every((t) => t.includes('start not recorded'))).toBe(true);
  });

  it('keeps the calls-in-flight curve where start times are recorded', () => {
    const chart = renderCharts('b_aggregate.jsonl', 'native');
    expect(chart.querySelector('.in-flight')?.textContent).toMatch(/^max \d+ in flight$/);
    expect(chart.querySelector('path.conc')).not.toBeNull();
  });
});

describe('waterfall beyond its span limit', () => {
  it('keeps the first spans and counts them all', () => {
    const { store } = servicesWith(fixtureEvents('c_recursive.jsonl'));
    const traj = store.getState().sessions.get('s1')!.traj;
    const all = sessionSpans(traj, Number.POSITIVE_INFINITY);
    const few = sessionSpans(traj, 5);
    expect(few.spans).toEqual(all.spans.slice(0, 5));
    expect(few.total).toBe(all.spans.length);
    expect(all.total).toBe(all.spans.length);
  });

  it('says it shows the first N of M calls', () => {
    const c = waterfallCaption(3000, 4512, 7, false);
    expect(c.title).toContain('the first 3000 of 4512 calls');
    expect(c.inFlight).toBe('max 7 in flight (first 3000 of 4512 calls)');
    expect(waterfallCaption(12, 12, 2, false).inFlight).toBe('max 2 in flight');
  });
});
