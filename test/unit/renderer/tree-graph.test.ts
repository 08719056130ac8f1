// The graph mode's geometry: the whole tree fits the canvas at first, and nodes carry what
// their run is about (the canvas itself is not drawn in jsdom).
import { describe, expect, it } from 'vitest';
import { fitTransform, nodeLabel } from '../../../src-renderer/views/TreeGraph.tsx';

describe('TreeGraph', () => {
  it('fits a tree into the canvas: every node and its label inside, centred vertically, never enlarged past 1.5', () => {
    // A root and six children one column to its right, 22 apart.
    const bounds = { x0: 0, x1: 210, y0: -55, y1: 55 };
    const { k, x, y } = fitTransform(bounds, 430, 500);
    const screen = (lx: number, ly: number): [number, number] => [x + lx * k, y + ly * k];
    for (const [lx, ly] of [
      [0, -55],
      [210 + 200, 55],
    ] as const) {
      const [sx, sy] = screen(lx, ly);
      expect(sx).toBeGreaterThanOrEqual(0);
      expect(sx).toBeLessThanOrEqual(430);
      expect(sy).toBeGreaterThanOrEqual(0);
      expect(sy).toBeLessThanOrEqual(500);
    }
    expect(screen(0, 0)[1]).toBeCloseTo(250);
    expect(fitTransform({ x0: 0, x1: 0, y0: 0, y1: 0 }, 2000, 2000).k).toBe(1.5);
  });

  it('shrinks a big tree as far as it must, down to the zoom’s least scale', () => {
    expect(fitTransform({ x0: 0, x1: 210 * 4, y0: -22 * 5000, y1: 22 * 5000 }, 430, 500).k).toBeCloseTo(0.02);
    expect(fitTransform({ x0: 0, x1: 210, y0: -22 * 50, y1: 22 * 50 }, 430, 500).k).toBeCloseTo((500 - 48) / (22 * 100 + 22));
  });

  it('labels a node with what its run is about, cut to its column, and its iterations', () => {
    expect(nodeLabel('…billing ===', 3)).toBe('…billing === · 3 it');
    expect(nodeLabel('Which service section of the log has the most ERROR lines?', 4)).toBe('Which service section of th… · 4 it');
  });
});
