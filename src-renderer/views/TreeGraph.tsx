// The recursion tree drawn with d3's tree layout on a canvas (10,000 runs stay smooth: one
// draw per zoom event, no DOM per node), with d3-zoom for zoom and pan and a quadtree for
// picking. The accessible list (TreePanel) is the keyboard route to the same runs.
import {
  hierarchy,
  interpolateViridis,
  quadtree,
  scaleSequential,
  select,
  tree,
  zoom,
  zoomIdentity,
  type HierarchyPointNode,
  type ZoomBehavior,
  type ZoomTransform,
} from 'd3';
import { useEffect, useMemo, useRef } from 'react';
import type { RunId } from '../../src-shared/events.ts';
import type { PauseInfo } from '../../src-shared/protocol.ts';
import { iterationCount, type TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { measureKnown, measureOf, runStatus, UNKNOWN_MEASURE_COLOUR, type Measure, type RunMetrics } from '../lib/run-derivations.ts';
import { useTrajectoryMemo } from '../lib/use-trajectory-memo.ts';

interface Datum {
  id: RunId | null;
  children: Datum[];
}

const STATUS_COLOUR: Record<string, string> = {
  running: '#4ea1ff',
  paused: '#f5a623',
  answered: '#3fb950',
  failed: '#f85149',
  limit: '#d29922',
  cancelled: '#8b949e',
};

/** Layout spacing: rows of siblings, and columns of depths wide enough for a label. */
const NODE_GAP = 22;
const DEPTH_GAP = 210;
const LABEL_CHARS = 28;
const MARGIN = 24;

/** A node's text: what the run is about (cut to fit its column) and its iterations. */
export function nodeLabel(label: string, iterations: number): string {
  const text = label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label;
  return `${text} · ${iterations} it`;
}

/**
 * The zoom that shows the whole tree (x: depth, y: siblings, in layout units) in a w × h
 * canvas, with room for the last column's labels; never enlarged past 1.5 nor shrunk below
 * the zoom's least scale, and centred vertically.
 */
export function fitTransform(
  bounds: { x0: number; x1: number; y0: number; y1: number },
  w: number,
  h: number,
): { k: number; x: number; y: number } {
  const width = bounds.x1 - bounds.x0 + DEPTH_GAP;
  const height = bounds.y1 - bounds.y0 + NODE_GAP;
  const k = Math.max(MIN_SCALE, Math.min(1.5, (w - 2 * MARGIN) / width, (h - 2 * MARGIN) / height));
  return { k, x: MARGIN - bounds.x0 * k, y: h / 2 - ((bounds.y0 + bounds.y1) / 2) * k };
}

const MIN_SCALE = 0.02;

export function TreeGraph(props: {
  traj: TrajectoryState;
  rev: number;
  metrics: Map<RunId, RunMetrics>;
  colourBy: Measure;
  selected: RunId | null;
  onSelect(id: RunId): void;
  pause: PauseInfo | null;
  /** What a run is about, in a few words (the list's row label). */
  labelOf(id: RunId): string;
}) {
  const { traj, rev, metrics, colourBy, selected, onSelect, pause, labelOf } = props;
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const transformRef = useRef<ZoomTransform>(zoomIdentity);
  const zoomRef = useRef<ZoomBehavior<HTMLCanvasElement, unknown> | null>(null);
  /** Until the user zooms or pans, the view keeps fitting the whole tree as it grows. */
  const movedRef = useRef(false);

  const layout = useTrajectoryMemo(traj, rev, (traj) => {
    // Build the hierarchy iteratively (deep chains must not overflow the stack).
    const root: Datum = { id: null, children: [] };
    const made = new Map<RunId, Datum>();
    const stack: [RunId, Datum][] = traj.roots.map((r) => [r, root]);
    while (stack.length > 0) {
      const [id, parent] = stack.pop() as [RunId, Datum];
      if (made.has(id)) continue;
      const d: Datum = { id, children: [] };
      made.set(id, d);
      parent.children.push(d);
      const run = traj.runs.get(id);
      if (run) for (let i = run.children.length - 1; i >= 0; i--) stack.push([run.children[i] as RunId, d]);
    }
    const h = hierarchy(root, (d) => d.children);
    const laid = tree<Datum>().nodeSize([NODE_GAP, DEPTH_GAP])(h);
    const nodes = laid.descendants().filter((n) => n.data.id !== null);
    const qt = quadtree<HierarchyPointNode<Datum>>()
      .x((n) => n.y)
      .y((n) => n.x)
      .addAll(nodes);
    return { nodes, links: laid.links().filter((l) => l.source.data.id !== null), qt };
  });

  const colour = useMemo(() => {
    let max = 0;
    for (const m of metrics.values()) max = Math.max(max, measureOf(m, colourBy));
    return scaleSequential(interpolateViridis).domain([0, max || 1]);
  }, [metrics, colourBy]);

  const drawRef = useRef<() => void>(() => {});
  drawRef.current = () => {
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.clientWidth;
    const hgt = canvas.clientHeight;
    if (canvas.width !== w * dpr || canvas.height !== hgt * dpr) {
      canvas.width = w * dpr;
      canvas.height = hgt * dpr;
    }
    const t = transformRef.current;
    const background = getComputedStyle(canvas).backgroundColor;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, hgt);
    ctx.translate(t.x, t.y);
    ctx.scale(t.k, t.k);
    // Cull to the visible window (in layout coordinates) before drawing.
    const x0 = -t.x / t.k - 100;
    const x1 = (w - t.x) / t.k + 100;
    const y0 = -t.y / t.k - 100;
    const y1 = (hgt - t.y) / t.k + 100;
    ctx.strokeStyle = 'rgba(140,150,160,0.5)';
    ctx.lineWidth = 1 / t.k;
    ctx.beginPath();
    for (const l of layout.links) {
      if ((l.source.y < x0 && l.target.y < x0) || (l.source.y > x1 && l.target.y > x1)) continue;
      if ((l.source.x < y0 && l.target.x < y0) || (l.source.x > y1 && l.target.x > y1)) continue;
      ctx.moveTo(l.source.y, l.source.x);
      ctx.lineTo(l.target.y, l.target.x);
    }
    ctx.stroke();
    for (const n of layout.nodes) {
      if (n.y < x0 || n.y > x1 || n.x < y0 || n.x > y1) continue;
      const id = n.data.id as RunId;
      const run = traj.runs.get(id);
      if (!run) continue;
      const m = metrics.get(id);
      ctx.fillStyle = measureKnown(m, colourBy) ? colour(measureOf(m, colourBy)) : UNKNOWN_MEASURE_COLOUR;
      ctx.beginPath();
      ctx.arc(n.y, n.x, 5, 0, Math.PI * 2);
      ctx.fill();
      ctx.strokeStyle = id === selected ? '#ffffff' : (STATUS_COLOUR[runStatus(run, pause)] ?? '#888');
      ctx.lineWidth = (id === selected ? 3 : 1.5) / t.k;
      ctx.stroke();
      if (t.k > 0.55) {
        // On the canvas's own colour, so that the links leaving the node do not cross the text.
        const text = nodeLabel(labelOf(id), iterationCount(run));
        ctx.font = '11px sans-serif';
        ctx.fillStyle = background;
        ctx.fillRect(n.y + 8, n.x - 7, ctx.measureText(text).width + 2, 14);
        ctx.fillStyle = 'rgba(200,205,210,0.9)';
        ctx.fillText(text, n.y + 9, n.x + 4);
      }
    }
  };

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const z = zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([MIN_SCALE, 8])
      .on('zoom', (ev: { transform: ZoomTransform; sourceEvent: unknown }) => {
        // A zoom the user made (wheel, drag), not one set by fitting.
        if (ev.sourceEvent) movedRef.current = true;
        transformRef.current = ev.transform;
        requestAnimationFrame(() => drawRef.current());
      });
    zoomRef.current = z;
    const sel = select(canvas);
    sel.call(z);
    fitRef.current();
    const ro = new ResizeObserver(() => {
      fitRef.current();
      drawRef.current();
    });
    ro.observe(canvas);
    return () => {
      sel.on('.zoom', null);
      ro.disconnect();
    };
  }, []);

  const fitRef = useRef<() => void>(() => {});
  fitRef.current = () => {
    const canvas = canvasRef.current;
    const z = zoomRef.current;
    if (!canvas || !z || movedRef.current || layout.nodes.length === 0 || canvas.clientWidth === 0) return;
    let x0 = Infinity;
    let x1 = -Infinity;
    let y0 = Infinity;
    let y1 = -Infinity;
    for (const n of layout.nodes) {
      x0 = Math.min(x0, n.y);
      x1 = Math.max(x1, n.y);
      y0 = Math.min(y0, n.x);
      y1 = Math.max(y1, n.x);
    }
    const f = fitTransform({ x0, x1, y0, y1 }, canvas.clientWidth, canvas.clientHeight);
    select(canvas).call(z.transform, zoomIdentity.translate(f.x, f.y).scale(f.k));
  };

  useEffect(() => {
    fitRef.current();
  }, [layout]);

  useEffect(() => {
    drawRef.current();
  });

  return (
    <canvas
      ref={canvasRef}
      className="tree-graph"
      role="img"
      aria-label={`Recursion tree graph of ${traj.runs.size} runs; use the list view for keyboard navigation`}
      onClick={(e) => {
        const rect = (e.target as HTMLCanvasElement).getBoundingClientRect();
        const t = transformRef.current;
        const [lx, ly] = t.invert([e.clientX - rect.left, e.clientY - rect.top]);
        const hit = layout.qt.find(lx, ly, 12 / t.k);
        if (hit?.data.id) onSelect(hit.data.id);
      }}
    />
  );
}
