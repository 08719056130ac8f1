// The app's shell must not re-render on every store change while a log loads: a load commits
// a new sessions Map several times a second (events folded, progress), and re-rendering the
// shell re-renders the topbar and reconciles every panel. App's renders are counted through
// the one hook it calls on each render (`useShortcuts`).
import { act, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { fixtureEvents } from './helpers.ts';

const renders = vi.hoisted(() => ({ app: 0 }));
vi.mock('../../../src-renderer/shortcuts.ts', () => ({
  useShortcuts: () => {
    renders.app++;
  },
}));

describe('App during a load', () => {
  it('renders a bounded number of times while events and progress stream in, and shows what was loaded', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const store = createStudioStore();
    const svc = new Services(store, null, () => null);
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    act(() => {
      store.getState().addLocalSession('L', 'big.jsonl');
      store.getState().setLoading('L', { bytes: 0, total: events.length });
    });
    const before = renders.app;
    const revBefore = store.getState().sessions.get('L')?.rev ?? 0;
    // As a load does: progress, then a batch of events folded and committed, many times over.
    const step = 3;
    for (let i = 0; i < events.length; i += step) {
      act(() => {
        const s = store.getState();
        s.setLoading('L', { bytes: i, total: events.length });
        s.ingestEvents('L', events.slice(i, i + step));
        s.flushEvents();
      });
    }
    act(() => {
      store.getState().setLoading('L', null);
      store.getState().setTimings('L', { firstViewMs: 1, fullMs: 2 });
    });
    const commits = (store.getState().sessions.get('L')?.rev ?? 0) - revBefore;
    expect(commits).toBeGreaterThanOrEqual(Math.floor(events.length / step));
    // Each commit above changed the sessions Map; none changed what the shell shows.
    expect(renders.app - before).toBeLessThanOrEqual(1);
    expect(screen.getByTestId('session-select').textContent).toContain('big.jsonl');
    expect(store.getState().sessions.get('L')?.events).toHaveLength(events.length);
  });

  it('still renders when what it shows changes (a session is renamed or closed)', () => {
    const store = createStudioStore();
    const svc = new Services(store, null, () => null);
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    act(() => store.getState().addLocalSession('L', 'first.jsonl'));
    expect(screen.getByTestId('session-select').textContent).toContain('first.jsonl');
    act(() => store.getState().addLocalSession('M', 'second.jsonl'));
    expect(screen.getByTestId('session-select').textContent).toContain('second.jsonl');
    act(() => store.getState().closeSession('M'));
    expect(screen.getByTestId('session-select').textContent).not.toContain('second.jsonl');
  });
});
