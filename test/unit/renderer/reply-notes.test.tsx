// What the app shows of real endpoints' replies (issue 38): the thinking collapsed beside a
// reply and a sub-call, a reply cut by the token cap, each reply's cached share, and the
// Charts view's cache-hit share per iteration; thinking is searchable.
import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { iterationTotals } from '../../../src-shared/trajectory/totals.ts';
import { fixtureEvents } from './helpers.ts';
import { mountApp } from './mount-app.tsx';

/** The b_aggregate fixture as a caching, thinking endpoint would have recorded it; the first reply cut by the cap. */
function withEndpointFields(): TrajectoryEvent[] {
  let replies = 0;
  return fixtureEvents('b_aggregate.jsonl').map((e) => {
    if (e.type === 'model.reply') {
      const n = replies++;
      return {
        ...e,
        usage: { ...e.usage, inputTokens: 1000, cachedInputTokens: n === 0 ? 0 : 800 },
        reasoning: { text: `REASONING-${n}: split the items into chunks first`, source: 'reasoning_content' as const },
        finishReason: n === 0 ? 'length' : 'stop',
      };
    }
    if (e.type === 'subcall.end') return { ...e, reasoning: { text: 'SUB-THINKING about the chunk', source: 'reasoning' as const } };
    return e;
  });
}

describe('replies of real endpoints in the app', () => {
  it('shows the thinking collapsed, the cut and the cached share beside each reply', () => {
    const { store, traj } = mountApp(withEndpointFields());
    const root = traj.runs.get(traj.roots[0]!)!;
    act(() => store.getState().select('s1', { runId: root.id, iteration: root.iterations[0]!.iteration }));
    const box = screen.getByTestId('reasoning');
    expect(box.hasAttribute('open')).toBe(false);
    expect(box.textContent).toContain('REASONING-0');
    expect(box.querySelector('summary')!.textContent).toMatch(/Thinking \(\d+ tok, reasoning_content\)/);
    expect(screen.getByTestId('reply-cut').textContent).toBe('cut by the token cap');
    act(() => store.getState().select('s1', { runId: root.id, iteration: root.iterations[1]!.iteration }));
    expect(screen.queryByTestId('reply-cut')).toBeNull();
    expect(screen.getByTestId('reasoning').textContent).toContain('REASONING-1');
    expect(document.body.textContent).toContain('80% cached');
    const subThinking = screen.queryAllByTestId('subcall-reasoning');
    expect(subThinking.length).toBeGreaterThan(0);
    expect(subThinking[0]!.textContent).toContain('SUB-THINKING');
  });

  it('finds the thinking in search', () => {
    const { store } = mountApp(withEndpointFields());
    act(() => store.getState().setPanel('search'));
    fireEvent.change(screen.getByTestId('search-input'), { target: { value: 'REASONING-1' } });
    const hits = screen.getAllByTestId('search-hit');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.textContent).toContain('reasoning');
  });

  it('charts the cache-hit share per iteration, and only when some input was cached', () => {
    const { store, traj } = mountApp(withEndpointFields());
    act(() => store.getState().setPanel('charts'));
    const chart = screen.getByTestId('chart-cache-hits');
    const titles = [...chart.querySelectorAll('rect.bar-a title')].map((t) => t.textContent);
    expect(titles[0]).toBe('1: cached share 0%');
    // The iteration's calls together: its reply (800 of 1,000 cached) and its sub-calls (none cached).
    const it2 = iterationTotals(traj, traj.runs.get(traj.roots[0]!)!.iterations[1]!);
    expect(it2.cachedInputTokens).toBe(800);
    expect(titles[1]).toBe(`2: cached share ${Math.round((100 * 800) / it2.inputTokens)}%`);
    const plain = mountApp(fixtureEvents('b_aggregate.jsonl'));
    act(() => plain.store.getState().setPanel('charts'));
    expect(plain.container.querySelector('[data-testid="chart-cache-hits"]')).toBeNull();
  });
});
