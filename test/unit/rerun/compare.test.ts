// The pieces of a re-execution that decide: output terms, context checks, recorded-call matching.
import { describe, expect, it } from 'vitest';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import type { BlockEndEvent } from '../../../src-shared/events.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { compareBlock } from '../../../src-main/rerun/compare.ts';
import { contextMismatch } from '../../../src-main/rerun/context-check.ts';
import { RecordedCalls } from '../../../src-main/rerun/recorded-calls.ts';
import type { ExecResult } from '../../../src-main/sandbox/types.ts';

const exec = (over: Partial<ExecResult>): ExecResult => ({
  stdout: '',
  stderr: '',
  error: null,
  durationMs: 1,
  cpuMs: 1,
  submitted: null,
  variables: [],
  replReset: null,
  ...over,
});
const end = (over: Partial<BlockEndEvent>): BlockEndEvent => ({
  v: 1,
  seq: 0,
  t: 0,
  ts: '',
  runId: 'r0' as BlockEndEvent['runId'],
  parentRunId: null,
  depth: 0,
  type: 'block.end',
  iteration: 1,
  block: 0,
  stdout: '',
  stderr: '',
  error: null,
  durationMs: 0,
  cpuMs: 0,
  submitted: null,
  variables: [],
  replReset: null,
  ...over,
});

describe('compareBlock', () => {
  it("renders our error as the reference writes it: stderr ends with '\\n{Type}: {message}'", () => {
    const c = compareBlock(
      end({ stdout: 'dict\n', stderr: '\nTypeError: bad' }),
      exec({ stdout: 'dict\n', error: { name: 'TypeError', message: 'bad' } }),
      'rlm-python',
    );
    expect(c).toMatchObject({ same: true, new: { stderr: '\nTypeError: bad', error: null } });
    expect(
      compareBlock(end({ stderr: '\nTypeError: bad' }), exec({ error: { name: 'KeyError', message: 'bad' } }), 'rlm-python').same,
    ).toBe(false);
  });

  it('compares native blocks field by field, the submission included', () => {
    const e = end({ stdout: 'x', error: { name: 'TypeError', message: 'm' }, submitted: null });
    expect(compareBlock(e, exec({ stdout: 'x', error: { name: 'TypeError', message: 'm' } }), 'native').same).toBe(true);
    expect(compareBlock(e, exec({ stdout: 'x', error: { name: 'TypeError', message: 'other' } }), 'native').same).toBe(false);
    expect(compareBlock(end({ submitted: 'a' }), exec({ submitted: 'b' }), 'native').same).toBe(false);
    expect(compareBlock(null, exec({}), 'native').same).toBe(false);
  });
});

describe('contextMismatch', () => {
  const str = { type: 'string' as const, totalChars: 5, chunkLengths: [5] };
  it('counts a str as Python does (code points) and names both sides', () => {
    expect(contextMismatch(str, 'héllo', 'rlm-python')).toBeNull();
    expect(contextMismatch({ ...str, totalChars: 1 }, '😀', 'rlm-python')).toBeNull();
    expect(contextMismatch(str, 'hello!', 'rlm-python')).toBe("the log's context is a str of 5 characters, this file gives 6");
    expect(contextMismatch(str, ['hello'], 'rlm-python')).toBe("the log's context is a str, this file gives a list");
    expect(contextMismatch(str, ['hello'], 'native')).toBe("the log's context is a string, this file gives a array");
  });
  it('checks lists of strings by total length, and only the type where the count depends on JSON', () => {
    const list = { type: 'array' as const, totalChars: 7, chunkLengths: [7] };
    expect(contextMismatch(list, ['abc', 'defg'], 'rlm-python')).toBeNull();
    expect(contextMismatch(list, ['abc'], 'rlm-python')).toMatch(/7 characters, this file gives 3/);
    expect(contextMismatch({ type: 'object', totalChars: 999, chunkLengths: [999] }, { a: [1, 2] }, 'rlm-python')).toBeNull();
  });
  it('says nothing when the log does not describe its context', () => {
    expect(contextMismatch({ type: 'string', totalChars: 0, chunkLengths: [] }, [1, 2], 'rlm-python')).toBeNull();
  });
});

describe('RecordedCalls', () => {
  const line = (o: unknown): string => `${JSON.stringify(o)}\n`;
  const call = (prompt: string, response: string) => ({
    root_model: 'm',
    prompt,
    response,
    usage_summary: { model_usage_summaries: {} },
    execution_time: 0,
  });
  const log =
    line({ type: 'metadata', root_model: 'm', max_depth: 1, max_iterations: 5 }) +
    line({
      type: 'iteration',
      iteration: 1,
      prompt: [{ role: 'user', content: 'q' }],
      response: 'r',
      code_blocks: [
        {
          code: 'x',
          result: {
            stdout: "0 'a'\n1 'Error: llm() call failed - upstream 503'\n2 'b'\n",
            stderr: '',
            locals: {},
            execution_time: 0,
            rlm_calls: [call('p2', 'b'), call('p0', 'a'), call('p0', 'a2')],
            final_answer: null,
          },
        },
      ],
      final_answer: null,
      iteration_time: 0,
    });
  const state = reduceEvents(readRlmPythonText(log).events);
  const run = state.runs.get(state.roots[0]!)!;
  const site = { iteration: 1, block: 0 };

  it('serves calls by prompt whatever their recorded order, equal prompts in recorded order', () => {
    const calls = new RecordedCalls(state, run, 'rlm-python');
    expect(calls.take(site, 'p0', false)?.end?.response).toBe('a');
    expect(calls.take(site, 'p2', false)?.end?.response).toBe('b');
    expect(calls.take(site, 'p0', false)?.end?.response).toBe('a2');
    expect(calls.take(site, 'p0', false)).toBeNull();
    expect(calls.take({ iteration: 2, block: 0 }, 'p0', false)).toBeNull();
  });

  it('gives a call the reference did not log the error text the block printed, else says it is unknown', () => {
    const calls = new RecordedCalls(state, run, 'rlm-python');
    expect(calls.unrecorded(site, 'llm_batched')).toBe('Error: llm() call failed - upstream 503');
    expect(calls.unrecorded(site, 'rlm')).toBe('Error: RLM query failed - (the log does not record why this call failed)');
    expect(new RecordedCalls(state, run, 'native').unrecorded(site, 'llm')).toMatch(/^Error: no result is recorded/);
  });
});
