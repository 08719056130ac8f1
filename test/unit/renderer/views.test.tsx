import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { usePrefs } from '../../../src-renderer/store/prefs.ts';
import { firstDivergence } from '../../../src-renderer/lib/divergence.ts';
import { compareWith, mountApp } from './mount-app.tsx';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { fixtureEvents } from './helpers.ts';
import { hostileEvents } from './hostile.ts';
import { scenario } from '../trajectory/synthetic.ts';

describe('views', () => {
  it('shows the recursion tree as an accessible tree and opens a run', () => {
    const { store } = mountApp(fixtureEvents('c_recursive.jsonl'));
    const tree = screen.getByRole('tree', { name: 'Recursion tree' });
    // jsdom has no layout, so the virtualiser renders the first rows only; all 4 runs fit.
    const items = within(tree).getAllByRole('treeitem');
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(items[0]!.getAttribute('aria-level')).toBe('1');
    // Keyboard: collapse the root with ArrowLeft.
    fireEvent.keyDown(tree, { key: 'ArrowLeft' });
    expect(within(tree).getAllByRole('treeitem')).toHaveLength(1);
    fireEvent.keyDown(tree, { key: 'ArrowRight' });
    expect(within(tree).getAllByRole('treeitem').length).toBeGreaterThan(1);
    // Selecting the root opens it: iteration detail with code and output.
    fireEvent.keyDown(tree, { key: 'Home' });
    fireEvent.keyDown(tree, { key: 'Enter' });
    const root = store.getState().sessions.get('s1')!.traj.roots[0]!;
    expect(store.getState().selection.get('s1')?.runId).toBe(root);
    fireEvent.click(screen.getByTestId('iteration-1'));
    const detail = screen.getByTestId('iteration-detail');
    expect(within(detail).getByTestId('code-0').textContent).toMatch(/\S/);
    expect(within(detail).getByTestId('output-0').getAttribute('data-readonly')).toBe('true');
  });

  it('keeps the tree keys working when a filter leaves fewer rows than the active one', () => {
    const { store } = mountApp(fixtureEvents('c_recursive.jsonl'));
    const tree = screen.getByRole('tree', { name: 'Recursion tree' });
    const traj = store.getState().sessions.get('s1')!.traj;
    const root = traj.roots[0]!;
    // The last row active, then a filter that only the root matches.
    fireEvent.keyDown(tree, { key: 'End' });
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter runs' }), { target: { value: 'Which service' } });
    const left = within(tree).getAllByRole('treeitem');
    expect(left).toHaveLength(1);
    expect(tree.getAttribute('aria-activedescendant')).toBe(left[0]!.id);
    expect(left[0]!.className).toMatch(/\bactive\b/);
    fireEvent.keyDown(tree, { key: 'Enter' });
    expect(store.getState().selection.get('s1')?.runId).toBe(root);
  });

  it('starts each panel and each run at the top of the pane', () => {
    const { store } = mountApp(fixtureEvents('c_recursive.jsonl'));
    const traj = store.getState().sessions.get('s1')!.traj;
    const root = traj.runs.get(traj.roots[0]!)!;
    act(() => store.getState().select('s1', { runId: root.id, iteration: null }));
    const pane = screen.getByTestId('center-pane');
    pane.scrollTop = 500;
    act(() => store.getState().setPanel('charts'));
    expect(screen.getByTestId('center-pane').scrollTop).toBe(0);
    screen.getByTestId('center-pane').scrollTop = 300;
    act(() => store.getState().setPanel('run'));
    expect(screen.getByTestId('center-pane').scrollTop).toBe(0);
    screen.getByTestId('center-pane').scrollTop = 300;
    act(() => store.getState().select('s1', { runId: root.children[0]!, iteration: null }));
    expect(screen.getByTestId('center-pane').scrollTop).toBe(0);
  });

  it('lists every panel in the shortcuts help, and says why a panel that needs a session shows the welcome page', () => {
    const store = createStudioStore();
    render(
      <ServicesProvider services={new Services(store, null, () => null)}>
        <App />
      </ServicesProvider>,
    );
    act(() => store.getState().setPanel('charts'));
    expect(screen.getByTestId('welcome-needs').textContent).toMatch(/^Charts shows the open session/);
    fireEvent.click(screen.getByRole('button', { name: 'Keyboard shortcuts' }));
    const help = screen.getByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(help.textContent).toContain('Alt+1…9');
    expect(help.textContent).toContain('Run, Charts, Compare, Search, Evaluation, Policy, Runs, Findings, Sweep');
    // Alt+7 picks the runs browser, Alt+8 the findings, Alt+9 the sweeps.
    act(() => void fireEvent.keyDown(window, { key: '7', altKey: true }));
    expect(store.getState().panel).toBe('runs');
    act(() => void fireEvent.keyDown(window, { key: '8', altKey: true }));
    expect(store.getState().panel).toBe('findings');
    act(() => void fireEvent.keyDown(window, { key: '9', altKey: true }));
    expect(store.getState().panel).toBe('sweep');
    // Closed by the key a dialog is closed with, as well as by its button and by '?'.
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull();
    fireEvent.keyDown(window, { key: '?' });
    expect(screen.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
  });

  it('counts the runs shown, not the rows that group a batch', () => {
    const { store } = mountApp(scenario().events);
    const traj = store.getState().sessions.get('s1')!.traj;
    const tree = screen.getByRole('tree', { name: 'Recursion tree' });
    expect(within(tree).getAllByText(/^batch ×2$/)).toHaveLength(1);
    expect(screen.getByText(/ runs · \d+ shown$/).textContent).toBe(`${traj.runs.size} runs · ${traj.runs.size} shown`);
  });

  it('colours a run whose cost is unknown in a neutral colour, not as the scale’s zero', () => {
    const swatch = (): string => (document.querySelector('[role="treeitem"] .swatch') as HTMLElement).style.background;
    usePrefs.getState().set({ colourBy: 'cost' });
    mountApp(fixtureEvents('e_code_errors.jsonl'));
    expect(swatch()).toBe('rgb(110, 118, 129)');
    act(() => usePrefs.getState().set({ colourBy: 'time' }));
    expect(swatch()).not.toBe('rgb(110, 118, 129)');
    expect(swatch()).not.toBe('');
    act(() => usePrefs.getState().set({ colourBy: 'cost' }));
  });

  it('shows usage per model beside the run totals (an imported reference log with a sub-call model)', () => {
    const { store } = mountApp(fixtureEvents('g_openai_http.jsonl'));
    const traj = store.getState().sessions.get('s1')!.traj;
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    const table = screen.getByTestId('run-by-model');
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((r) => [...r.querySelectorAll('th, td')].map((c) => c.textContent));
    expect(rows).toEqual([
      ['mock-root', '3', 'unknown', 'unknown', 'unknown'],
      ['mock-sub', '1', '38', '5', '$0.00009'],
    ]);
  });

  it('links sub-calls to child runs', () => {
    const { store } = mountApp(fixtureEvents('c_recursive.jsonl'));
    const traj = store.getState().sessions.get('s1')!.traj;
    const root = traj.runs.get(traj.roots[0]!)!;
    const parentIt = traj.runs.get(root.children[0]!)!.spawnedBy!.iteration;
    act(() => store.getState().select('s1', { runId: root.id, iteration: parentIt }));
    const links = screen.getAllByTestId('open-child');
    fireEvent.click(links[0]!);
    expect(store.getState().selection.get('s1')?.runId).toBe(root.children[0]);
  });

  it('renders the charts panel', () => {
    const { store } = mountApp(fixtureEvents('b_aggregate.jsonl'));
    act(() => store.getState().setPanel('charts'));
    for (const id of ['chart-iterations', 'chart-depth', 'chart-waterfall', 'chart-tokens', 'chart-cross-cost'])
      expect(screen.getByTestId(id)).toBeTruthy();
    expect(screen.getByTestId('chart-waterfall').querySelectorAll('rect.span').length).toBeGreaterThan(5);
  });

  it('searches and jumps to a match', () => {
    const { store } = mountApp(fixtureEvents('e_code_errors.jsonl'));
    act(() => store.getState().setPanel('search'));
    fireEvent.change(screen.getByTestId('search-input'), { target: { value: 'TypeError' } });
    const hits = screen.getAllByTestId('search-hit');
    fireEvent.click(hits[0]!);
    expect(store.getState().panel).toBe('run');
    expect(store.getState().selection.get('s1')?.iteration).not.toBeNull();
  });

  it('jumps from a match in the initial prompt of a run to the iteration that shows it', () => {
    const { store } = mountApp(fixtureEvents('c_recursive.jsonl'));
    act(() => store.getState().setPanel('search'));
    fireEvent.change(screen.getByTestId('search-input'), { target: { value: 'same order out as in' } });
    const child = screen.getAllByTestId('search-hit').find((h) => h.textContent?.includes('r0/2.0.0'));
    expect(child?.textContent).toContain('r0/2.0.0 #1 · prompt');
    fireEvent.click(child!);
    expect(store.getState().selection.get('s1')).toEqual({ runId: 'r0/2.0.0', iteration: 1 });
    expect(within(screen.getByTestId('prompt-messages')).getByText(/same order out as in/)).toBeTruthy();
  });

  it('says how to get a second session when only one is open, then compares the active one with the other', () => {
    const { store } = mountApp(fixtureEvents('a_needle.jsonl'));
    act(() => store.getState().setPanel('compare'));
    expect(screen.getByTestId('compare-empty').textContent).toMatch(/needs two sessions: open another log/);
    act(() => {
      store.getState().addLocalSession('s2', 'other');
      store.getState().ingestEvents('s2', fixtureEvents('e_code_errors.jsonl'));
      store.getState().flushEvents();
    });
    // The session just opened is the active one: it is A, the first one B, with nothing chosen.
    const sel = (w: string) => screen.getByTestId<HTMLSelectElement>(`compare-${w}`).value;
    expect([sel('a'), sel('b')]).toEqual(['s2', 's1']);
    expect(screen.getByTestId('divergence').textContent).toMatch(/iteration 1/);
    expect(store.getState().compare).toEqual({ a: null, b: null });
    // Choosing one side keeps the other as shown; choosing none on a side says to choose.
    fireEvent.change(screen.getByTestId('compare-b'), { target: { value: 's2' } });
    expect(store.getState().compare).toEqual({ a: 's2', b: 's2' });
    fireEvent.change(screen.getByTestId('compare-a'), { target: { value: '' } });
    expect(screen.getByTestId('compare-empty').textContent).toBe('Choose two loaded sessions.');
  });

  it('compares two sessions and names the first divergence', () => {
    const { store } = mountApp(fixtureEvents('a_needle.jsonl'));
    compareWith(store, fixtureEvents('e_code_errors.jsonl'));
    expect(screen.getByTestId('divergence').textContent).toMatch(/iteration 1/);
    // Both sides of the divergence are shown, the first differing line marked on each.
    const sides = within(screen.getByTestId('divergence-sides')).getAllByRole('figure');
    expect(sides.map((f) => f.querySelector('figcaption strong')?.textContent)).toEqual(['fixture', 'other']);
    const div = firstDivergence(store.getState().sessions.get('s1')!.traj, store.getState().sessions.get('s2')!.traj)!;
    for (const [f, text] of [
      [sides[0]!, div.a!],
      [sides[1]!, div.b!],
    ] as const) {
      expect(f.querySelector('.differs')?.textContent).toBe(`${text.split('\n')[div.line - 1]}\n`);
    }
    // "open" on the second side shows that session at that iteration (it opened the first only).
    act(() => within(sides[1]!).getByRole('button', { name: 'open' }).click());
    const st = store.getState();
    expect(st.activeId).toBe('s2');
    expect(st.panel).toBe('run');
    expect(st.selection.get('s2')?.iteration).toBe(div.iteration);
  });

  it('a hostile log executes nothing and renders its text as text', () => {
    const before = document.querySelectorAll('script').length;
    const { store, container } = mountApp(hostileEvents());
    const traj = store.getState().sessions.get('s1')!.traj;
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: 1 }));
    expect((window as unknown as { __pwned?: boolean }).__pwned).toBeUndefined();
    expect(document.querySelectorAll('script').length).toBe(before);
    expect(container.querySelectorAll('img, iframe, object, embed').length).toBe(0);
    for (const a of container.querySelectorAll('a')) expect(a.getAttribute('href') ?? '').not.toMatch(/^javascript:/i);
    expect(container.textContent).toContain('<script>window.__pwned=true</script>');
  });
});
