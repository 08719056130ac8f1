// A run at maxDepth 0 (one direct call, no REPL, no iterations) renders as such.
import { fireEvent, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { usePrefs } from '../../../src-renderer/store/prefs.ts';
import { servicesWith } from './helpers.ts';

function directRunEvents(): TrajectoryEvent[] {
  const env = (seq: number, extra: object) => ({
    v: 1,
    seq,
    t: seq * 10,
    ts: '2026-01-01T00:00:00.000Z',
    runId: 'run-0',
    parentRunId: null,
    depth: 0,
    ...extra,
  });
  const limits = {
    maxDepth: 0,
    maxIterations: 30,
    maxBudgetUsd: null,
    maxTimeoutMs: null,
    maxTokens: null,
    maxErrors: null,
    maxConcurrencyLlm: 16,
    maxConcurrencyRlm: 4,
  };
  const usage = { inputTokens: 1200, outputTokens: 30, costUsd: 0.002 };
  const sent = [{ role: 'user', content: 'THE WHOLE CONTEXT\n\nWhat is the code?' }];
  const events = [
    env(0, {
      type: 'run.start',
      spawnedBy: null,
      turn: 0,
      model: 'mock-root',
      subModel: null,
      query: 'What is the code?',
      context: { type: 'string', totalChars: 17, chunkLengths: [17] },
      limits,
      messages: sent,
      tools: [],
      repl: 'javascript',
    }),
    env(1, {
      type: 'model.reply',
      iteration: 0,
      purpose: 'direct',
      model: 'mock-root',
      text: 'The code is 4827193.',
      usage,
      latencyMs: 420,
    }),
    env(2, {
      type: 'run.end',
      answer: 'The code is 4827193.',
      stopReason: 'answered',
      message: null,
      iterations: 0,
      durationMs: 430,
      usage: { ...usage, calls: 1 },
    }),
  ];
  return events as unknown as TrajectoryEvent[];
}

describe('a direct-call run', () => {
  it('shows the call, its prompt and its answer, with no iterations and no REPL', () => {
    usePrefs.getState().set({ treeMode: 'list' });
    const { svc } = servicesWith(directRunEvents());
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    expect(screen.getByTestId('run-repl').textContent).toBe('direct call, no REPL');
    expect(screen.getByTestId('run-answer').textContent).toContain('The code is 4827193.');
    expect(screen.getByText(/0 iterations · 1 direct call/)).toBeTruthy();
    fireEvent.click(screen.getByTestId('iteration-0'));
    const detail = screen.getByTestId('iteration-detail');
    expect(within(detail).getByRole('heading', { level: 3 }).textContent).toMatch(/^Direct call/);
    expect(within(detail).getByTestId('reply-text').textContent).toBe('The code is 4827193.');
    expect(detail.textContent).toContain('THE WHOLE CONTEXT');
    expect(within(detail).getByTestId<HTMLButtonElement>('fork').disabled).toBe(true);
  });
});
