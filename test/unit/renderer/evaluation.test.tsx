// The Evaluation view against a scripted host: open by path, the task table (sorting, a row
// opening its task's session), accuracy by kind and size, the cost/runtime charts, and the
// two-evaluation comparison listing the tasks only one of them solved.
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { EvalOverview, EvalTaskRow, SessionSummary } from '../../../src-shared/protocol.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { accuracyBy, compareEvals, sortRows } from '../../../src-renderer/lib/eval.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { ScriptedHost, type HostCommand, hostSummary } from './helpers.ts';

function row(id: string, over: Partial<EvalTaskRow> = {}): EvalTaskRow {
  const [kind = 'sniah', size = '8192'] = id.split(/-(?=\d)/);
  const [taskId = id, repeat = '0'] = id.split('#');
  return {
    id,
    taskId,
    repeat: Number(repeat),
    kind,
    sizeTokens: Number(size.split('-')[0]),
    score: 1,
    correct: true,
    stopReason: 'answered',
    costUsd: 0.001,
    durationMs: 100,
    calls: 3,
    iterations: 3,
    logFile: `/e/${id}.rlm.jsonl`,
    sessionId: null,
    byModel: null,
    ...over,
  };
}

function evaluation(dir: string, tasks: EvalTaskRow[], maxIterations: number | null = null): EvalOverview {
  return {
    dir,
    name: dir.split('/').at(-1)!,
    settings: {
      dataset: '/d/ds.jsonl',
      model: 'mock-root',
      subModel: null,
      maxDepth: 1,
      maxIterations,
      baseUrl: 'http://x/v1',
      createdAt: null,
    },
    datasetTasks: tasks.length,
    tasks,
    problems: [],
    progress: null,
    scorers: [],
    scorer: null,
  };
}

const FULL = evaluation('/runs/full', [
  row('sniah-8192-s1', {
    costUsd: 0.002,
    durationMs: 120,
    byModel: {
      root: { inputTokens: 1000, outputTokens: 100, calls: 2, costUsd: 0.0015 },
      sub: { inputTokens: 400, outputTokens: 40, calls: 1, costUsd: 0.0005 },
    },
  }),
  row('oolong-8192-s1', {
    costUsd: 0.004,
    durationMs: 300,
    sessionId: 'S-oolong',
    byModel: { root: { inputTokens: 2000, outputTokens: 200, calls: 3, costUsd: null } },
  }),
  row('browsecomp-8192-s1', { costUsd: 0.005, durationMs: 150, calls: 11 }),
  row('browsecomp-16384-s1', { costUsd: 0.009, durationMs: 220, calls: 11 }),
]);
const SHORT = evaluation(
  '/runs/short',
  [
    row('sniah-8192-s1', { costUsd: 0.002, durationMs: 110 }),
    row('oolong-8192-s1', { score: 0, correct: false, stopReason: 'max_iterations', costUsd: 0.001 }),
    row('browsecomp-8192-s1', { score: 0, correct: false, stopReason: 'max_iterations' }),
    row('browsecomp-16384-s1', { score: 0.5, correct: false }),
  ],
  2,
);

const UNPRICED = evaluation('/runs/unpriced', [row('sniah-8192-s1', { costUsd: null }), row('oolong-8192-s1', { costUsd: null })]);
const PARTLY = evaluation('/runs/partly', [
  row('sniah-8192-s1', { costUsd: 0.002 }),
  row('oolong-8192-s1', { costUsd: null }),
  row('browsecomp-8192-s1', { costUsd: 0.004 }),
]);
const RETRIED = evaluation('/runs/retried', [
  row('sniah-8192-s1', { retries: 2 }),
  row('oolong-8192-s1'),
  row('browsecomp-8192-s1', { retries: 1 }),
]);
const RESCORED = {
  ...evaluation('/runs/rescored', [row('sniah-8192-s1', { score: 0, correct: false }), row('oolong-8192-s1')]),
  scorers: ['lenient'],
};
const OPENABLE = [FULL, SHORT, UNPRICED, PARTLY, RETRIED, RESCORED];

const summary = (id: string, title: string): SessionSummary => hostSummary(id, { title });

/** Plays the host: answers each command from a table, records what was asked. */
class EvalHost extends ScriptedHost {
  protected override answer(c: HostCommand, id: number): boolean {
    switch (c.type) {
      case 'eval.open': {
        const found = OPENABLE.find((o) => o.dir === c.path) ?? null;
        // As the host reads scores.jsonl: the chosen scorer's correctness in place of results.jsonl's.
        const e =
          found && c.scorer !== undefined
            ? { ...found, scorer: c.scorer, tasks: found.tasks.map((t) => ({ ...t, score: 1, correct: true })) }
            : found;
        if (!e) this.refuse(id, `cannot open the evaluation ${c.path}: no such directory`, 'not_found');
        else
          this.replyTo(id, {
            evaluation: e,
            sessions: e.tasks.filter((t) => t.sessionId).map((t) => summary(t.sessionId!, `${e.name}/${t.id}`)),
          });
        return true;
      }
      case 'session.open':
        this.replyTo(id, { session: summary(`S-${c.path}`, c.path) });
        return true;
      case 'subscribe':
        this.replyTo(id, { session: summary(c.sessionId, c.sessionId), header: null });
        return true;
      default:
        return false;
    }
  }
}

function mount() {
  const carrier = new EvalHost();
  carrier.setState('open');
  const store = createStudioStore();
  const svc = new Services(store, carrier, () => null);
  render(
    <ServicesProvider services={svc}>
      <App />
    </ServicesProvider>,
  );
  return { store, carrier };
}

async function openByPath(path: string): Promise<void> {
  fireEvent.change(screen.getByTestId('eval-path'), { target: { value: path } });
  await act(async () => {
    fireEvent.submit(screen.getByTestId('eval-path').closest('form')!);
  });
}

const rowIds = (): string[] =>
  within(screen.getByTestId('eval-table'))
    .getAllByTestId(/^eval-row-/)
    .map((el) => el.dataset['testid']!.slice('eval-row-'.length));

describe('evaluation derivations', () => {
  it('groups accuracy by kind and size, sorts, and finds the tasks only one solved', () => {
    const acc = accuracyBy(SHORT.tasks);
    expect(acc.kinds.map((k) => [k.kind, k.n, k.correct])).toEqual([
      ['browsecomp', 2, 0],
      ['oolong', 1, 0],
      ['sniah', 1, 1],
    ]);
    expect(acc.kindSizes.map((g) => g.key)).toEqual(['browsecomp@8192', 'browsecomp@16384', 'oolong@8192', 'sniah@8192']);
    expect(acc.kindSizes[1]!.meanScore).toBe(0.5);
    expect(sortRows(FULL.tasks, 'cost', true).map((r) => r.id)[0]).toBe('browsecomp-16384-s1');
    expect(sortRows(FULL.tasks, 'time', false).map((r) => r.id)[0]).toBe('sniah-8192-s1');
    const cmp = compareEvals(FULL, SHORT);
    expect(cmp).toMatchObject({ onlyB: [], both: 1, neither: 0, common: 4, repeated: false });
    expect(cmp.onlyA.map((t) => t.taskId)).toEqual(['browsecomp-16384-s1', 'browsecomp-8192-s1', 'oolong-8192-s1']);
    expect(compareEvals(SHORT, FULL).onlyB.map((t) => t.taskId)).toEqual(cmp.onlyA.map((t) => t.taskId));
  });

  it('groups --repeat sessions by task: each task counts once, with how many of its sessions were correct', () => {
    // A ran t1 and t2 three times each; B once. Session keys t1#1, t1#2 are not tasks of their own.
    const a = evaluation('/runs/rep', [
      row('t1', { correct: true }),
      row('t1#1', { correct: true }),
      row('t1#2', { correct: false }),
      row('t2', { correct: false }),
      row('t2#1', { correct: true }),
      row('t2#2', { correct: false }),
    ]);
    const b = evaluation('/runs/once', [row('t1', { correct: false }), row('t2', { correct: true })]);
    const cmp = compareEvals(a, b);
    expect(cmp).toMatchObject({ common: 2, both: 0, neither: 0, missingInA: [], missingInB: [], repeated: true });
    expect(cmp.onlyA).toEqual([{ taskId: 't1', a: { correct: 2, sessions: 3, first: 't1' }, b: { correct: 0, sessions: 1, first: 't1' } }]);
    expect(cmp.onlyB).toEqual([{ taskId: 't2', a: { correct: 1, sessions: 3, first: 't2' }, b: { correct: 1, sessions: 1, first: 't2' } }]);
  });
});

describe('Evaluation view', () => {
  it('opens an evaluation by path: summary, accuracy, charts and a sortable task table', async () => {
    const { store, carrier } = mount();
    act(() => store.getState().setPanel('eval'));
    await openByPath('/runs/full');
    expect(carrier.sent.some((m) => m.command.type === 'eval.open' && m.command.path === '/runs/full')).toBe(true);
    expect(screen.getByTestId('eval-summary').textContent).toMatch(/4 of 4 tasks finished; accuracy 100\.0%/);
    expect(screen.getByTestId('eval-acc-browsecomp@16384').textContent).toContain('16384');
    for (const id of ['eval-chart-cost', 'eval-chart-time'])
      expect(screen.getByTestId(id).querySelectorAll('rect.bar-a').length).toBeGreaterThan(0);
    expect(screen.getByTestId('eval-chart-cost').textContent).toMatch(/n=4 · p25/);
    // Usage per model, summed over the tasks that recorded it (a task without a price adds none).
    const byModel = within(screen.getByTestId('eval-by-model'));
    expect(byModel.getByRole('row', { name: /^root/ }).textContent).toMatch(/^root5.*3,000.*300.*\$0\.0015/);
    expect(byModel.getByRole('row', { name: /^sub/ }).textContent).toMatch(/^sub1.*400.*40.*\$0\.0005/);
    // The host opened one log; it is in the session list.
    expect(store.getState().sessions.has('S-oolong')).toBe(true);

    expect(rowIds()).toEqual(['browsecomp-16384-s1', 'browsecomp-8192-s1', 'oolong-8192-s1', 'sniah-8192-s1']);
    fireEvent.click(screen.getByTestId('eval-sort-cost'));
    expect(rowIds()[0]).toBe('browsecomp-16384-s1');
    expect(within(screen.getByTestId('eval-table')).getByRole('columnheader', { name: /cost/ }).getAttribute('aria-sort')).toBe(
      'descending',
    );
    fireEvent.click(screen.getByTestId('eval-sort-time'));
    expect(rowIds()[0]).toBe('oolong-8192-s1');
    fireEvent.click(screen.getByTestId('eval-sort-time'));
    expect(rowIds()[0]).toBe('sniah-8192-s1');
  });

  it('a row opens its task: the opened session, or the log opened on demand (once)', async () => {
    const { store, carrier } = mount();
    act(() => store.getState().setPanel('eval'));
    await openByPath('/runs/full');
    await act(async () => {
      fireEvent.click(screen.getByTestId('eval-row-oolong-8192-s1'));
    });
    await waitFor(() => expect(store.getState().activeId).toBe('S-oolong'));
    expect(store.getState().panel).toBe('run');
    expect(carrier.sent.filter((m) => m.command.type === 'session.open')).toHaveLength(0);

    act(() => store.getState().setPanel('eval'));
    await act(async () => {
      fireEvent.click(screen.getByTestId('eval-row-sniah-8192-s1'));
    });
    await waitFor(() => expect(store.getState().activeId).toBe('S-/e/sniah-8192-s1.rlm.jsonl'));
    expect(carrier.sent.filter((m) => m.command.type === 'session.open').map((m) => m.command)).toEqual([
      { type: 'session.open', path: '/e/sniah-8192-s1.rlm.jsonl' },
    ]);
    // The row now knows its session: a second click does not open the log again.
    expect(
      store
        .getState()
        .evals.get('/runs/full')!
        .tasks.find((t) => t.id === 'sniah-8192-s1')!.sessionId,
    ).toBe('S-/e/sniah-8192-s1.rlm.jsonl');
    act(() => store.getState().setPanel('eval'));
    await act(async () => {
      fireEvent.click(screen.getByTestId('eval-row-sniah-8192-s1'));
    });
    expect(carrier.sent.filter((m) => m.command.type === 'session.open')).toHaveLength(1);
  });

  it('compares two evaluations: side by side, and the tasks only one solved', async () => {
    const { store } = mount();
    act(() => store.getState().setPanel('eval'));
    await openByPath('/runs/full');
    expect(screen.getByTestId('eval-compare').textContent).toMatch(/Open two evaluations/);
    await openByPath('/runs/short');
    // The first two opened become A and B.
    expect(store.getState().evalView).toEqual({ active: '/runs/short', a: '/runs/full', b: '/runs/short' });
    const onlyA = within(screen.getByTestId('eval-only-a'))
      .getAllByRole('button')
      .map((b) => b.textContent);
    expect(onlyA).toEqual(['browsecomp-16384-s1', 'browsecomp-8192-s1', 'oolong-8192-s1']);
    expect(screen.getByTestId('eval-only-b').textContent).toBe('none');
    expect(screen.getByTestId('eval-compare-counts').textContent).toMatch(
      /Of 4 tasks in both: 1 solved by both, 0 by neither, 3 only by A, 0 only by B\./,
    );
    const table = screen.getByTestId('eval-compare-table');
    const acc = within(table).getByText('accuracy (mean score)').closest('tr')!;
    expect(acc.textContent).toBe('accuracy (mean score)100.0%37.5%');
    expect(acc.className).toBe('differs');
    // Paired by task: A solved 3 tasks B did not (exact McNemar 3 vs 0: p = 2/8); A took 10, 200, 50, 120 ms longer.
    const paired = screen.getByTestId('paired-table');
    const cells = (metric: string) =>
      [...within(paired).getByTestId(`paired-${metric}`).querySelectorAll('td')].map((td) => td.textContent);
    expect(cells('accuracy').slice(0, 3)).toEqual(['100.0%', '25.0%', '+75.0%']);
    expect(cells('accuracy')[6]).toBe('exact McNemar 3 vs 0, p 0.2500');
    expect(cells('time').slice(0, 3)).toEqual(['198 ms', '103 ms', '+95 ms']);
    expect(cells('time')[6]).toBe('Wilcoxon p 0.1250');
    expect(within(paired).getByTestId('paired-calls')).toBeTruthy();
    expect(screen.getByTestId('paired-comparison').textContent).toMatch(
      /4 task\(s\) in both; .* 95% BCa bootstrap interval over tasks \(2000 resamples, seed 1\)/,
    );
    // Swapping A and B swaps the lists.
    fireEvent.change(screen.getByTestId('eval-compare-a'), { target: { value: '/runs/short' } });
    fireEvent.change(screen.getByTestId('eval-compare-b'), { target: { value: '/runs/full' } });
    expect(screen.getByTestId('eval-only-a').textContent).toBe('none');
    expect(within(screen.getByTestId('eval-only-b')).getAllByRole('button')).toHaveLength(3);
  });

  it('shows the scores of a scorer from scores.jsonl on request, and keeps it when the view reads the folder again', async () => {
    const { store, carrier } = mount();
    act(() => store.getState().setPanel('eval'));
    await openByPath('/runs/full');
    expect(screen.queryByTestId('eval-scorer')).toBeNull(); // no scores.jsonl: nothing to choose
    await openByPath('/runs/rescored');
    expect(screen.getByTestId('eval-summary').textContent).toMatch(/accuracy 50\.0% \(1 fully correct\)/);
    await act(async () => {
      fireEvent.change(screen.getByTestId('eval-scorer'), { target: { value: 'lenient' } });
    });
    expect(carrier.sent.filter((m) => m.command.type === 'eval.open').at(-1)!.command).toMatchObject({
      path: '/runs/rescored',
      scorer: 'lenient',
    });
    expect(screen.getByTestId('eval-summary').textContent).toMatch(/accuracy 100\.0% \(2 fully correct\)/);
    expect(screen.getByTestId<HTMLSelectElement>('eval-scorer').value).toBe('lenient');
    await act(async () => {
      fireEvent.change(screen.getByTestId('eval-scorer'), { target: { value: '' } });
    });
    expect(carrier.sent.filter((m) => m.command.type === 'eval.open').at(-1)!.command).not.toHaveProperty('scorer');
    expect(screen.getByTestId('eval-summary').textContent).toMatch(/accuracy 50\.0%/);
  });

  it('says the cost is unknown when no task recorded a price, and counts only the priced ones otherwise', async () => {
    const { store } = mount();
    act(() => store.getState().setPanel('eval'));
    await openByPath('/runs/unpriced');
    expect(screen.getByTestId('eval-summary').textContent).toMatch(/total cost unknown \(no task recorded a price\)\.$/);
    expect(screen.getByTestId('eval-chart-cost').querySelectorAll('rect.bar-a')).toHaveLength(0);
    await openByPath('/runs/partly');
    expect(screen.getByTestId('eval-summary').textContent).toMatch(/total cost \$0\.00600 \(1 task\(s\) without a price not counted\)\.$/);
    expect(screen.getByTestId('eval-chart-cost').textContent).toMatch(/n=2 · p25/);
    const costRow = within(screen.getByTestId('eval-compare-table')).getByText('cost p50 / p95').closest('tr')!;
    expect(costRow.textContent).toBe('cost p50 / p95unknown$0.00300 / $0.00390');
  });

  it('shows the requests retried per task and in all', async () => {
    const { store } = mount();
    act(() => store.getState().setPanel('eval'));
    await openByPath('/runs/retried');
    expect(screen.getByTestId('eval-retries-total').textContent).toBe(' · 3 retries');
    const callsOf = (id: string): string | null =>
      within(screen.getByTestId(`eval-row-${id}`))
        .getAllByRole('cell')
        .at(-1)!.textContent;
    expect(callsOf('sniah-8192-s1')).toBe('3 · 2 retries');
    expect(callsOf('oolong-8192-s1')).toBe('3');
    expect(callsOf('browsecomp-8192-s1')).toBe('3 · 1 retry');
    await openByPath('/runs/partly');
    expect(screen.queryByTestId('eval-retries-total')).toBeNull();
  });

  it('names a missing directory in an error notice', async () => {
    const { store } = mount();
    act(() => store.getState().setPanel('eval'));
    await openByPath('/runs/nope');
    await waitFor(() =>
      expect(store.getState().notices.at(-1)?.text).toMatch(
        /could not open the evaluation \/runs\/nope: cannot open the evaluation \/runs\/nope: no such directory/,
      ),
    );
    expect(store.getState().evals.size).toBe(0);
  });
});
