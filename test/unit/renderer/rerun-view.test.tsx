// A re-execution's comparison in the app: the line diff, the summary read from block.end's
// `rerun`, and the views (banner with counts and links to the differing blocks, the mark on
// each block, the diff of recorded against new output, the iteration chip of a difference).
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { asSessionId, type BlockEndEvent, type BlockRerun, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { createTrajectoryState, reduceEvents } from '../../../src-shared/trajectory/index.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { diffLines } from '../../../src-renderer/lib/diff.ts';
import { comparedText, rerunSummary } from '../../../src-renderer/lib/rerun.ts';
import { usePrefs } from '../../../src-renderer/store/prefs.ts';
import { fixtureEvents, servicesWith } from './helpers.ts';

describe('diffLines', () => {
  it('finds the fewest changes and keeps the rest as context', () => {
    expect(diffLines('a\nb\nc\n', 'a\nb\nc')).toEqual([
      { op: 'same', text: 'a' },
      { op: 'same', text: 'b' },
      { op: 'same', text: 'c' },
    ]);
    expect(diffLines('a\nb\nc\nd', 'a\nx\nc\nd\ne')).toEqual([
      { op: 'same', text: 'a' },
      { op: 'removed', text: 'b' },
      { op: 'added', text: 'x' },
      { op: 'same', text: 'c' },
      { op: 'same', text: 'd' },
      { op: 'added', text: 'e' },
    ]);
    expect(diffLines('', 'new')).toEqual([{ op: 'added', text: 'new' }]);
    expect(diffLines('old', '')).toEqual([{ op: 'removed', text: 'old' }]);
  });

  it('always rebuilds both sides, also for shuffled lines and past its edit budget', () => {
    const a = Array.from({ length: 60 }, (_, i) => `line ${(i * 7) % 23}`).join('\n');
    const b = Array.from({ length: 55 }, (_, i) => `line ${(i * 5) % 19}`).join('\n');
    for (const budget of [500, 3]) {
      const d = diffLines(a, b, budget);
      expect(
        d
          .filter((l) => l.op !== 'added')
          .map((l) => l.text)
          .join('\n'),
      ).toBe(a);
      expect(
        d
          .filter((l) => l.op !== 'removed')
          .map((l) => l.text)
          .join('\n'),
      ).toBe(b);
    }
    // Within budget the script is minimal: here one change among 58 equal lines.
    const long = Array.from({ length: 58 }, (_, i) => `row ${i}`);
    const changed = [...long.slice(0, 30), 'row X', ...long.slice(31)];
    expect(diffLines(long.join('\n'), changed.join('\n')).filter((l) => l.op !== 'same')).toHaveLength(2);
  });
});

/** The fixture as a re-execution: every block compared, the second iteration's first block changed. */
function reexecuted(): TrajectoryEvent[] {
  const events = fixtureEvents('c_recursive.jsonl');
  return events.map((e) => {
    if (e.type !== 'block.end') return e;
    const recorded = { stdout: e.stdout, stderr: e.stderr, error: e.error, submitted: e.submitted };
    const differs = e.depth === 0 && e.iteration === 2 && e.block === 0;
    const rerun: BlockRerun = {
      terms: 'rlm-python',
      same: !differs,
      recorded,
      new: differs ? { ...recorded, stdout: `${e.stdout}one more line\n` } : recorded,
    };
    const out: BlockEndEvent = { ...e, rerun };
    return out;
  });
}

describe('a re-execution in the app', () => {
  it('counts the compared blocks and lists the different ones', () => {
    const events = reexecuted();
    const traj = reduceEvents(events, {
      format: 'rlm-studio',
      version: 1,
      sessionId: asSessionId('r'),
      createdAt: '2026-12-02T10:00:00.000Z',
      repl: 'python',
      rerunOf: { logFile: '/logs/c_recursive.jsonl', format: 'rlm-python' },
    });
    const s = rerunSummary(traj);
    const compared = events.filter((e) => e.type === 'block.end').length;
    expect(s).toMatchObject({ source: { logFile: '/logs/c_recursive.jsonl', format: 'rlm-python' }, blocks: compared, same: compared - 1 });
    expect(s?.different).toEqual([{ runId: traj.roots[0], depth: 0, iteration: 2, block: 0 }]);
    expect(rerunSummary(createTrajectoryState())).toBeNull();
    expect(comparedText({ stdout: 'out\n', stderr: '', error: { name: 'TypeError', message: 'bad' }, submitted: '42' })).toBe(
      'out\nTypeError: bad\n(submitted the answer: 42)',
    );
  });

  it('shows the banner, marks each block, and diffs recorded against new output', () => {
    usePrefs.getState().set({ treeMode: 'list' });
    const { store, svc } = servicesWith(reexecuted(), 'rerun');
    act(() =>
      store.getState().setHeader('s1', {
        format: 'rlm-studio',
        version: 1,
        sessionId: asSessionId('s1'),
        createdAt: '2026-12-02T10:00:00.000Z',
        repl: 'python',
        rerunOf: { logFile: '/logs/c_recursive.jsonl', format: 'rlm-python' },
      }),
    );
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    const banner = screen.getByTestId('rerun-summary');
    expect(banner.textContent).toMatch(
      /Re-execution of c_recursive\.jsonl \(reference library log\): \d+ blocks run again · \d+ same · 1 different/,
    );
    expect(screen.getByTestId('iteration-2').className).toContain('rerun-differs');
    expect(screen.getByTestId('iteration-1').className).not.toContain('rerun-differs');
    // A same block: marked, no diff.
    act(() => store.getState().select('s1', { iteration: 1 }));
    expect(screen.getByTestId('rerun-0').getAttribute('data-same')).toBe('true');
    expect(screen.queryByTestId('rerun-diff-0')).toBeNull();
    // The banner's link goes to the different block, which shows its diff.
    fireEvent.click(within(banner).getByTestId('rerun-show-diff'));
    expect(store.getState().selection.get('s1')?.iteration).toBe(2);
    expect(screen.getByTestId('rerun-0').getAttribute('data-same')).toBe('false');
    const diff = screen.getByTestId('rerun-diff-0');
    expect(diff.querySelectorAll('.diff-added')).toHaveLength(1 + 1); // the legend and the one new line
    expect(diff.querySelector('pre .diff-added')?.textContent).toBe('+ one more line\n');
    expect(diff.querySelector('pre .diff-removed')).toBeNull();
  });
});
