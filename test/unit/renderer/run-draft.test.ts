// The New run form's draft: one reducer changes it, and the `session.start` it makes is
// checked by the protocol's schema (a bad limit or an empty custom prompt is named, nothing sent).
import { describe, expect, it } from 'vitest';
import type { EndpointProfile } from '../../../src-shared/protocol.ts';
import { draftReducer, INITIAL_DRAFT, startOf } from '../../../src-renderer/views/new-run/run-draft.ts';

const py: EndpointProfile = {
  name: 'py',
  baseUrl: 'http://h:1/v1',
  model: 'm',
  subModel: null,
  apiKeyRef: null,
  prices: {},
  repl: 'python',
  finalPatterns: true,
  examples: ['/runs/a.rlm.jsonl'],
  exampleBudget: 5000,
};

describe('the new-run draft', () => {
  it('a picked profile brings its language, paper-era setting and examples; a built-in prompt choice falls back to the profile’s', () => {
    const d = draftReducer({ ...INITIAL_DRAFT, promptMode: 'builtin', finalPatterns: false }, { type: 'profile', name: 'py', profile: py });
    expect(d).toMatchObject({
      profile: 'py',
      repl: 'python',
      finalPatterns: true,
      examples: '/runs/a.rlm.jsonl',
      exampleBudget: '5000',
      promptMode: 'profile',
    });
    const back = draftReducer(d, { type: 'profile', name: 'demo', profile: null });
    expect(back).toMatchObject({ repl: 'javascript', finalPatterns: false, examples: '', exampleBudget: '' });
  });

  it('breakpoints toggle; the start carries the fields typed, limits as numbers', () => {
    let d = draftReducer(INITIAL_DRAFT, { type: 'breakpoint', kind: 'after_reply' });
    d = draftReducer(d, { type: 'breakpoint', kind: 'on_error' });
    d = draftReducer(d, { type: 'breakpoint', kind: 'after_reply' });
    d = draftReducer(d, {
      type: 'set',
      patch: { ctxKind: 'text', text: 'ctx', query: 'q?', maxIterations: '2', maxTimeout: '1.5', childLlmModel: 'own' },
    });
    expect(startOf(d, null)).toEqual({
      start: {
        profile: 'demo',
        context: { kind: 'text', text: 'ctx' },
        query: 'q?',
        limits: { maxIterations: 2, maxTimeoutMs: 1500, childLlmModel: 'own' },
        breakpoints: [{ kind: 'on_error' }],
        startPaused: false,
        repl: 'javascript',
        finalPatterns: false,
      },
    });
  });

  it('names what the schema refuses, and an empty custom prompt in words', () => {
    expect(startOf({ ...INITIAL_DRAFT, maxIterations: '0' }, null)).toEqual({ problem: expect.stringMatching(/^limits\.maxIterations: /) });
    expect(startOf({ ...INITIAL_DRAFT, promptMode: 'custom', systemPrompt: '' }, null)).toEqual({
      problem: 'The custom system prompt is empty: type it or load it from a file.',
    });
  });
});
