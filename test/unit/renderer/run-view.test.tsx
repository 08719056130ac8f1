// The run view as an audit of reference logs found it wanting: errors shown once, a failed
// answer marked as such, iteration chips that fit and say what their glyphs mean, a selected
// iteration brought into view, and usage a log did not record shown as unknown.
import { readFileSync } from 'node:fs';
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import type { EvalTaskRow } from '../../../src-shared/protocol.ts';
import { emptyTotals, usageUnknown } from '../../../src-shared/trajectory/index.ts';
import { blockOutputText, errorLineOf } from '../../../src-renderer/lib/block-output.ts';
import { fmtCost, fmtTokenPair, usageNote } from '../../../src-renderer/lib/format.ts';
import { searchSession } from '../../../src-renderer/lib/session-search.ts';
import { compareWith, mountApp } from './mount-app.tsx';
import { FIXTURES, fixtureEvents } from './helpers.ts';

const count = (text: string, part: string): number => text.split(part).length - 1;

describe('a code error', () => {
  it('is shown once when the stderr already holds it (an imported reference log)', () => {
    const { store, traj } = mountApp(fixtureEvents('e_code_errors.jsonl'));
    const root = traj.roots[0]!;
    act(() => store.getState().select('s1', { runId: root, iteration: 1 }));
    expect(count(screen.getByTestId('output-0').textContent ?? '', 'TypeError: the JSON object must be str')).toBe(1);
    act(() => store.getState().select('s1', { runId: root, iteration: 2 }));
    expect(count(screen.getByTestId('output-0').textContent ?? '', "KeyError: 'order'")).toBe(1);
    // Search finds what is shown: one hit each, not the stderr and the error line both.
    expect(searchSession(traj, 'TypeError: the JSON').filter((h) => h.field === 'output')).toHaveLength(1);
    expect(searchSession(traj, "KeyError: 'order'").filter((h) => h.field === 'output')).toHaveLength(1);
  });

  it('keeps its own line when the stderr does not show it (a native run)', () => {
    const error = { name: 'TypeError', message: 'x is not a function' };
    expect(errorLineOf({ stderr: '', error })).toBe('TypeError: x is not a function');
    expect(blockOutputText({ stdout: 'a\n', stderr: 'warned\n', error })).toBe('a\n\nwarned\n\nTypeError: x is not a function');
    expect(errorLineOf({ stderr: 'Traceback …\n  File "<string>"\nTypeError: x is not a function\n', error })).toBeNull();
    // The import's fallback: no recognisable last line, the whole stderr is the message.
    expect(errorLineOf({ stderr: 'segfault\n', error: { name: 'Error', message: 'segfault' } })).toBeNull();
    expect(errorLineOf({ stderr: 'Traceback\nKeyboardInterrupt\n', error: { name: 'KeyboardInterrupt', message: '' } })).toBeNull();
  });
});

describe('the run answer', () => {
  it('is marked as stopped, not as a success, when a limit ended the run', () => {
    const { store, traj } = mountApp(fixtureEvents('d_max_iterations.jsonl'));
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    const answer = screen.getByTestId('run-answer');
    expect(answer.querySelector('b')?.textContent).toBe('Answer (stopped: max iterations)');
    expect(answer.classList.contains('answer-stopped')).toBe(true);
  });

  it('keeps the success style for a run that answered', () => {
    const { store, traj } = mountApp(fixtureEvents('e_code_errors.jsonl'));
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    const answer = screen.getByTestId('run-answer');
    expect(answer.querySelector('b')?.textContent).toBe('Answer');
    expect(answer.classList.contains('answer-stopped')).toBe(false);
  });

  it('carries its score when an evaluation graded it, marked when it was wrong though the run answered', () => {
    const { store, traj } = mountApp(fixtureEvents('e_code_errors.jsonl'));
    const task = (correct: boolean, score: number): EvalTaskRow => ({
      id: 'oolong-3',
      taskId: 'oolong-3',
      repeat: 0,
      kind: 'oolong',
      sizeTokens: 1000,
      score,
      correct,
      stopReason: 'answered',
      costUsd: null,
      durationMs: 10,
      calls: 1,
      iterations: 4,
      logFile: '/evals/e1/oolong-3.jsonl',
      sessionId: 's1',
      byModel: null,
    });
    const settings = { dataset: null, model: null, subModel: null, maxDepth: null, maxIterations: null, baseUrl: null, createdAt: null };
    const graded = (t: EvalTaskRow): void =>
      act(() =>
        store.getState().upsertEval({
          dir: '/evals/e1',
          name: 'e1',
          settings,
          datasetTasks: 1,
          tasks: [t],
          problems: [],
          progress: null,
          scorers: [],
          scorer: null,
        }),
      );
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    graded(task(false, 0));
    const answer = (): HTMLElement => screen.getByTestId('run-answer');
    expect(answer().querySelector('b')?.textContent).toBe('Answer · wrong: score 0.000 (evaluation task oolong-3)');
    expect(answer().classList.contains('answer-stopped')).toBe(true);
    graded(task(true, 1));
    expect(answer().querySelector('b')?.textContent).toBe('Answer · correct: score 1.000 (evaluation task oolong-3)');
    expect(answer().classList.contains('answer-stopped')).toBe(false);
  });
});

describe('the iteration chips', () => {
  it('spell their glyphs out in a title and take the width of their text', () => {
    const { store, traj } = mountApp(fixtureEvents('c_recursive.jsonl'));
    const root = traj.runs.get(traj.roots[0]!)!;
    act(() => store.getState().select('s1', { runId: root.id, iteration: 1 }));
    const withCalls = root.iterations.find((it) => it.blocks.some((b) => b.calls.length > 0))!;
    const chip = screen.getByTestId(`iteration-${withCalls.iteration}`);
    expect(chip.textContent).toMatch(/▢ · \d+↘/);
    expect(chip.title).toMatch(/^\d+(\.\d+)? (ms|s) · \d+ code blocks? · \d+ sub-calls?( · |$)/);
    expect(chip.style.width).toBe('');
  });

  it('names an error', () => {
    const { store, traj } = mountApp(fixtureEvents('e_code_errors.jsonl'));
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: 1 }));
    const chip = screen.getByTestId('iteration-1');
    expect(chip.textContent).toContain('⚠');
    expect(chip.title).toMatch(/ · 1 code block · error$/);
  });
});

describe('picking an iteration', () => {
  function spyScroll() {
    const calls: { el: Element; arg: unknown }[] = [];
    const spy = vi.spyOn(Element.prototype, 'scrollIntoView').mockImplementation(function (this: Element, arg?: unknown) {
      calls.push({ el: this, arg });
    });
    return { calls, restore: () => spy.mockRestore() };
  }

  it('brings its first code block into view when a chip is clicked, and only then', () => {
    const { store, traj } = mountApp(fixtureEvents('e_code_errors.jsonl'));
    const s = spyScroll();
    try {
      // A selection made elsewhere (and the first view) does not scroll.
      act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: 1 }));
      expect(s.calls).toHaveLength(0);
      fireEvent.click(screen.getByTestId('iteration-2'));
      expect(s.calls).toHaveLength(1);
      expect(s.calls[0]!.arg).toEqual({ block: 'start' });
      const detail = screen.getByTestId('iteration-detail');
      expect(detail.getAttribute('aria-label')).toBe('Iteration 2');
      expect(s.calls[0]!.el).toBe(within(detail).getByTestId('block-0'));
      // Clicking the chip already shown scrolls again: the person asked for it.
      fireEvent.click(screen.getByTestId('iteration-2'));
      expect(s.calls).toHaveLength(2);
    } finally {
      s.restore();
    }
  });

  it('brings the turn into view when a turn is clicked', () => {
    const text = (name: string) => readFileSync(`${FIXTURES}/${name}`, 'utf8');
    const events = readRlmPythonText(`${text('a_needle.jsonl')}\n${text('e_code_errors.jsonl')}`).events;
    const { traj } = mountApp(events);
    expect(traj.roots.length).toBe(2);
    const s = spyScroll();
    try {
      fireEvent.click(screen.getByTestId('turn-1'));
      expect(s.calls).toHaveLength(1);
      expect(s.calls[0]!.el).toBe(within(screen.getByTestId('iteration-detail')).getByTestId('block-0'));
    } finally {
      s.restore();
    }
  });

  it('is picked from a list, with the previous and next, when a log has many turns', () => {
    const one = readFileSync(`${FIXTURES}/e_code_errors.jsonl`, 'utf8');
    const { store, traj } = mountApp(readRlmPythonText(Array.from({ length: 14 }, () => one).join('\n')).events);
    expect(traj.roots.length).toBe(14);
    const shown = (): string | undefined => store.getState().selection.get('s1')?.runId ?? undefined;
    // No wall of fourteen buttons above the run.
    expect(screen.queryByTestId('turn-0')).toBeNull();
    const list = screen.getByTestId<HTMLSelectElement>('turn-select');
    expect([...list.options].map((o) => o.value)).toEqual(traj.roots);
    expect(list.options[3]!.textContent).toMatch(/^turn 3: .+ · \w+/);
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    expect(screen.getByTestId<HTMLButtonElement>('turn-prev').disabled).toBe(true);
    expect(screen.getByText('1 of 14 turns')).toBeTruthy();
    fireEvent.click(screen.getByTestId('turn-next'));
    expect(shown()).toBe(traj.roots[1]);
    fireEvent.change(list, { target: { value: traj.roots[13] } });
    expect(shown()).toBe(traj.roots[13]);
    expect(screen.getByTestId<HTMLButtonElement>('turn-next').disabled).toBe(true);
    fireEvent.click(screen.getByTestId('turn-prev'));
    expect(shown()).toBe(traj.roots[12]);
    expect(screen.getByTestId<HTMLSelectElement>('turn-select').value).toBe(traj.roots[12]);
  });

  it('steps through turns with [ and ], from a child run too, and through iterations with j, k and u', () => {
    const text = (name: string) => readFileSync(`${FIXTURES}/${name}`, 'utf8');
    const { store, traj } = mountApp(
      readRlmPythonText(`${text('a_needle.jsonl')}\n${text('c_recursive.jsonl')}\n${text('a_needle.jsonl')}`).events,
    );
    expect(traj.roots.length).toBe(3);
    const shown = () => store.getState().selection.get('s1');
    const key = (k: string) => fireEvent.keyDown(window, { key: k });
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    key('[');
    expect(shown()?.runId).toBe(traj.roots[0]);
    key(']');
    expect(shown()).toEqual({ runId: traj.roots[1], iteration: null });
    // Into a child run of the second turn, then up to its parent with u.
    const child = [...traj.runs.values()].find((r) => r.rootRunId === traj.roots[1] && r.parentRunId !== null)!;
    act(() => store.getState().select('s1', { runId: child.id, iteration: 1 }));
    key('j');
    expect(shown()).toEqual({ runId: child.id, iteration: 2 });
    key('k');
    expect(shown()).toEqual({ runId: child.id, iteration: 1 });
    key('u');
    expect(shown()?.runId).toBe(child.parentRunId);
    act(() => store.getState().select('s1', { runId: child.id, iteration: 1 }));
    key(']');
    expect(shown()).toEqual({ runId: traj.roots[2], iteration: null });
    key(']');
    expect(shown()?.runId).toBe(traj.roots[2]);
  });

  it('shows the prompt messages folded, on iteration 1 too', () => {
    const { store, traj } = mountApp(fixtureEvents('e_code_errors.jsonl'));
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: 1 }));
    expect(screen.getByTestId<HTMLDetailsElement>('prompt-messages').open).toBe(false);
  });
});

describe('usage a log did not record', () => {
  it('shows as unknown, not as zero, in the run header, the iteration and the tree rows', () => {
    const { store, traj, container } = mountApp(fixtureEvents('e_code_errors.jsonl'));
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: 1 }));
    expect(screen.getByTestId('run-usage').textContent).toBe('tokens unknown · cost unknown');
    expect(screen.getByTestId('run-usage').title).toMatch(/no token usage recorded/);
    expect(screen.getByTestId('iteration-usage').textContent).toMatch(/ · tokens unknown · cost unknown/);
    const nums = container.querySelector('[role="treeitem"] .run-nums') as HTMLElement;
    expect(nums.textContent).toMatch(/^\d+ it · — tok · — · /);
    expect(nums.title).toMatch(/no known price/);
  });

  it('shows what is known, marked as not all, when part was recorded', () => {
    const { store, traj } = mountApp(fixtureEvents('g_openai_http.jsonl'));
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    // The sub-call's usage and price are logged, the root model's replies are not.
    expect(screen.getByTestId('run-usage').textContent).toBe('38 in / 5 out tokens + unknown · $0.00009 + unknown');
  });

  it('shows as unknown in the compare view', () => {
    const { store } = mountApp(fixtureEvents('a_needle.jsonl'));
    compareWith(store, fixtureEvents('e_code_errors.jsonl'));
    const row = (label: string) =>
      [...screen.getByTestId('compare').querySelectorAll('tr')]
        .find((r) => r.querySelector('th')?.textContent === label)!
        .querySelectorAll('td');
    expect([...row('cost')].map((c) => c.textContent)).toEqual(['unknown', 'unknown']);
    expect([...row('tokens in / out')].map((c) => c.textContent)).toEqual(['unknown / unknown', 'unknown / unknown']);
  });

  it('leaves usage that was recorded as it was', () => {
    const known = { ...emptyTotals(), modelCalls: 2, inputTokens: 1200, outputTokens: 80, costUsd: 0.5 };
    expect(fmtTokenPair(known, { unit: ' tokens' })).toBe('1,200 in / 80 out tokens');
    expect(fmtCost(known)).toBe('$0.500');
    expect(fmtCost({ ...known, costUsd: 0 })).toBe('$0');
    expect(usageNote(known)).toBeUndefined();
    // Recorded zeros with a price are zeros; only no tokens and no price is "not recorded".
    expect(usageUnknown({ inputTokens: 0, outputTokens: 0, costUsd: 0 })).toBe(false);
    expect(usageUnknown({ inputTokens: 12, outputTokens: 0, costUsd: null })).toBe(false);
    expect(usageUnknown({ inputTokens: 0, outputTokens: 0, costUsd: null })).toBe(true);
  });
});

describe('retried model calls', () => {
  it('show their retries beside the reply time and the sub-call time', () => {
    const events = fixtureEvents('g_openai_http.jsonl').map((e) => {
      if (e.type === 'model.reply' && e.iteration === 1 && e.parentRunId === null) return { ...e, retries: 2 };
      if (e.type === 'subcall.end') return { ...e, retries: 1 };
      return e;
    });
    const { store, traj } = mountApp(events);
    const call = events.find((e) => e.type === 'subcall.end');
    const iteration = [...traj.calls.values()].find((c) => c.start.callId === call?.callId)?.start.iteration ?? 1;
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    // The run header sums the run's and its children's: the reply's 2 and 1 per plain sub-call.
    const plainCalls = [...traj.calls.values()].filter((c) => c.start.childRunId === null).length;
    expect(screen.getByTestId('run-retries-total').textContent).toBe(` · ${2 + plainCalls} retries`);
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: 1 }));
    expect(screen.getAllByTestId('retries')[0]!.textContent).toBe(' · 2 retries');
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration }));
    expect(screen.getAllByTestId('retries').map((el) => el.textContent)).toContain(' · 1 retry');
  });
});

describe('the layers that protected a run', () => {
  it('are shown in the run header as run.start recorded them, and not at all when it recorded none', () => {
    const events = fixtureEvents('g_openai_http.jsonl').map((e) =>
      e.type === 'run.start' && e.parentRunId === null
        ? { ...e, sandbox: { layers: ['isolate', 'memory-limit', 'scrubbed-env', 'bwrap'] } }
        : e,
    );
    const { store, traj } = mountApp(events);
    act(() => store.getState().select('s1', { runId: traj.roots[0]!, iteration: null }));
    expect(screen.getByTestId('run-sandbox').textContent).toBe('isolate + memory limit + scrubbed environment + OS sandbox (bubblewrap)');
    const child = [...traj.runs.values()].find((r) => r.parentRunId !== null);
    if (child) {
      act(() => store.getState().select('s1', { runId: child.id, iteration: null }));
      expect(screen.queryByTestId('run-sandbox')).toBeNull();
    }
  });
});
