import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnchorIndex, MIN_SPAN_CHARS } from '../../../src-shared/analysis/anchor-index.ts';
import { computeCoverage, type CoverageReport } from '../../../src-shared/analysis/coverage.ts';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import { asRunId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { filler, prng } from '../../../src-main/corpus/seeded-text.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { Script, runStart } from '../trajectory/synthetic.ts';
import { makeContext, nativeSession, referenceEvents, type TurnSpec } from './coverage-sessions.ts';

const { context, needle } = makeContext(3000, 1868);
const C = context.length;
const needleAt = context.indexOf(needle);

const cover = (events: TrajectoryEvent[], ctx = context): CoverageReport => computeCoverage(ctx, reduceEvents(events));
const formats: [string, (t: TurnSpec[]) => TrajectoryEvent[]][] = [
  ['native', nativeSession],
  ['reference', referenceEvents],
];

describe('AnchorIndex', () => {
  it('finds every copy of at least the minimum length wherever it starts, and none shorter', () => {
    const index = new AnchorIndex(context);
    for (const start of [0, 1, 7, 15, 16, 17, 1000, C - MIN_SPAN_CHARS]) {
      const copy = context.slice(start, start + MIN_SPAN_CHARS);
      expect(index.find(`xx${copy}yy`)).toEqual([{ textStart: 2, textEnd: 2 + MIN_SPAN_CHARS, contextStart: start }]);
      // One character shorter: never reported, whatever the alignment.
      expect(index.find(`\u0001${copy.slice(1)}\u0002`)).toEqual([]);
    }
  });

  it('extends a copy to its exact ends and finds several copies in one text', () => {
    const index = new AnchorIndex(context);
    const a = context.slice(500, 1700);
    const b = context.slice(9000, 9100);
    expect(index.find(`§${a}§§${b}§`)).toEqual([
      { textStart: 1, textEnd: 1 + a.length, contextStart: 500 },
      { textStart: 3 + a.length, textEnd: 3 + a.length + b.length, contextStart: 9000 },
    ]);
  });

  it('places long copies exactly in 12-word filler prose, where every anchor repeats thousands of times', () => {
    const ctx = filler(prng(7), 2_000_000);
    const index = new AnchorIndex(ctx);
    for (const [start, len] of [
      [0, 5000],
      [123_457, 50_000],
      [1_500_001, 79],
      [1_999_000, 1000],
    ] as const) {
      expect(index.find(`Summarise:\n${ctx.slice(start, start + len)}`)).toEqual([
        { textStart: 11, textEnd: 11 + len, contextStart: start },
      ]);
    }
  });

  it('places 500 chunks of filler behind a prompt prefix at their own place, whatever their alignment', () => {
    const ctx = filler(prng(11), 3_000_000);
    const index = new AnchorIndex(ctx);
    const rand = prng(5);
    for (let k = 0; k < 500; k++) {
      const start = Math.floor(rand() * (ctx.length - 6000));
      const len = 80 + Math.floor(rand() * 5000);
      const found = index.find(`Summarise this part:\n${ctx.slice(start, start + len)}`);
      expect(found).toHaveLength(1);
      // The prompt's last characters may happen to equal those before the chunk: still one copy.
      const f = found[0]!;
      expect([f.textEnd, f.contextStart + (f.textEnd - f.textStart)]).toEqual([21 + len, start + len]);
      expect(f.contextStart).toBeLessThanOrEqual(start);
    }
  });

  it('places copies exactly in a context of more anchors than the long chains have buckets (2^20)', () => {
    // 24 million characters: 1.5 million anchors, so every long-hash bucket is shared.
    const ctx = filler(prng(13), 24_000_000);
    const index = new AnchorIndex(ctx);
    const rand = prng(17);
    for (let k = 0; k < 200; k++) {
      const start = Math.floor(rand() * (ctx.length - 60_000));
      const len = MIN_SPAN_CHARS + Math.floor(rand() * 52_000);
      const found = index.find(`Summarise this part:\n${ctx.slice(start, start + len)}`);
      expect(found).toHaveLength(1);
      const f = found[0]!;
      expect([f.textEnd, f.contextStart + (f.textEnd - f.textStart)]).toEqual([21 + len, start + len]);
    }
    // Text made of none of the context's characters: nothing, whatever it hashes to.
    expect(index.find('ZQXJ'.repeat(50_000))).toEqual([]);
  });

  it('prefers the longest match when a passage repeats', () => {
    const ctx = `${'abcdefghij'.repeat(20)}|unique tail of the repeated passage here|${'abcdefghij'.repeat(20)}`;
    const index = new AnchorIndex(ctx);
    const text = ctx.slice(150, 243);
    expect(index.find(text)).toEqual([{ textStart: 0, textEnd: text.length, contextStart: 150 }]);
  });
});

describe.each(formats)('coverage of a %s log', (name, build) => {
  it('head only: the root saw exactly the printed head', () => {
    const r = cover(build([{ stdout: `str ${C}\n${context.slice(0, 2000)}\n` }]));
    expect(r.session).toEqual({
      contextChars: C,
      seenByRootChars: 2000,
      sentToSubcallsChars: 0,
      sentToChildrenChars: 0,
      seenChars: 2000,
      unseenChars: C - 2000,
    });
    expect(r.spans).toMatchObject([{ start: 0, end: 2000, role: 'root', iteration: 1, block: 0 }]);
    expect(r.unseen).toEqual([{ start: 2000, end: C }]);
  });

  it('needle only: the root saw the needle line', () => {
    const r = cover(build([{ stdout: `hits: 1\n1868 ${needle}\n` }]));
    // The printed line ends with a newline, as in the context; our engine drops an output's
    // last newline from the message, the reference keeps it.
    const shown = needle.length + (name === 'native' ? 0 : 1);
    expect(r.session.seenByRootChars).toBe(shown);
    expect(r.spans).toMatchObject([{ start: needleAt, end: needleAt + shown, role: 'root', iteration: 1 }]);
  });

  it('head and needle line: exactly those two spans, the rest unseen', () => {
    const r = cover(build([{ stdout: context.slice(0, 300) }, { stdout: `1868 ${needle}` }]));
    expect(r.session.seenByRootChars).toBe(300 + needle.length);
    expect(r.spans.map((s) => [s.start, s.end, s.iteration])).toEqual([
      [0, 300, 1],
      [needleAt, needleAt + needle.length, 2],
    ]);
    expect(r.unseen).toEqual([
      { start: 300, end: needleAt },
      { start: needleAt + needle.length, end: C },
    ]);
    expect(r.session.unseenChars).toBe(C - 300 - needle.length);
  });

  it('everything sent to sub-calls in chunks; the root saw only their answers', () => {
    const chunks: string[] = [];
    for (let i = 0; i < C; i += 10_000) chunks.push(context.slice(i, i + 10_000));
    const r = cover(
      build([{ stdout: 'ok ok ok\n', calls: chunks.map((c) => ({ kind: 'llm' as const, prompt: `Find the access code in:\n${c}` })) }]),
    );
    expect(r.session).toEqual({
      contextChars: C,
      seenByRootChars: 0,
      sentToSubcallsChars: C,
      sentToChildrenChars: 0,
      seenChars: C,
      unseenChars: 0,
    });
    expect(r.spans).toHaveLength(chunks.length);
    expect(r.spans.every((s) => s.role === 'subcall' && s.callId !== null)).toBe(true);
  });

  it('nothing seen: metadata only, and a child run given the whole context that printed nothing', () => {
    const r = cover(build([{ stdout: `str ${C}\n`, calls: [{ kind: 'rlm', prompt: context }] }]));
    expect(r.session).toEqual({
      contextChars: C,
      seenByRootChars: 0,
      sentToSubcallsChars: 0,
      sentToChildrenChars: C,
      seenChars: 0,
      unseenChars: C,
    });
    expect(r.unseen).toEqual([{ start: 0, end: C }]);
    expect(r.runs).toHaveLength(2);
    expect(r.runs[0]).toMatchObject({ depth: 0, sentToChildrenChars: C, unseenChars: C });
    expect(r.runs[1]).toMatchObject({ depth: 1, sentToChildrenChars: 0, seenByRootChars: 0, unseenChars: C });
  });

  it('a long output counts only the part shown to the model (20,000 characters per block)', () => {
    const r = cover(build([{ stdout: context.slice(0, 50_000) }]));
    const seen = r.session.seenByRootChars;
    // Ours shows the first 20,000 characters; the reference's message begins with a newline, so 19,999.
    expect(seen === 20_000 || seen === 19_999).toBe(true);
    expect(r.spans).toMatchObject([{ start: 0, end: seen }]);
  });

  it('the output of the last turn reaches no model', () => {
    const events = build([{ stdout: context.slice(0, 500) }]);
    // Drop the answering turn: the printed head was never sent back to the model.
    const lastIterStart = events.findLastIndex((e) => e.type === 'iteration.start' && e.depth === 0);
    const cut = events.slice(0, lastIterStart).filter((e) => e.type !== 'run.end');
    expect(cover(cut).session.seenByRootChars).toBe(0);
  });
});

describe('a direct call (maxDepth 0)', () => {
  it('the root model saw the whole context in its one prompt', () => {
    const s = new Script();
    const r = { runId: asRunId('d'), parentRunId: null, depth: 0 };
    runStart(s, r, 0, null, [{ role: 'user', content: `Context:\n${context}\n\nQuery: q` }]);
    s.emit({
      type: 'model.reply',
      ...r,
      iteration: 0,
      purpose: 'direct',
      model: 'm',
      text: 'a',
      usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 },
      latencyMs: 1,
    });
    s.emit({
      type: 'run.end',
      ...r,
      answer: 'a',
      stopReason: 'answered',
      message: null,
      iterations: 0,
      durationMs: 1,
      usage: { inputTokens: 1, outputTokens: 1, costUsd: 0, calls: 1 },
    });
    const rep = cover(s.events);
    expect(rep.session).toMatchObject({ seenByRootChars: C, unseenChars: 0 });
    expect(rep.spans).toMatchObject([{ start: 0, end: C, role: 'root', iteration: 0, block: null }]);
  });
});

describe('the reference library’s own logs', () => {
  it('a_needle: the head (300 characters) and the needle line, nothing else', () => {
    const ctx = readFileSync(join(REFERENCE_FIXTURES, 'contexts/a_needle.txt'), 'utf8');
    const r = cover(readRlmPythonText(readFileSync(join(REFERENCE_FIXTURES, 'a_needle.jsonl'), 'utf8')).events, ctx);
    const line = ctx.split('\n').find((l) => l.includes('secret access code'))!;
    const at = ctx.indexOf(line);
    // print(i, l) ends the line with a newline, as the context does.
    expect(r.spans.map((s) => [s.start, s.end, s.iteration, s.block])).toEqual([
      [0, 300, 1, 0],
      [at, at + line.length + 1, 2, 0],
    ]);
    expect(r.session.seenByRootChars).toBe(300 + line.length + 1);
    expect(r.session.unseenChars).toBe(ctx.length - 300 - line.length - 1);
  });

  it('c_recursive: each section went to a child run, which printed nothing of it', () => {
    const ctx = readFileSync(join(REFERENCE_FIXTURES, 'contexts/c_recursive.txt'), 'utf8');
    const r = cover(readRlmPythonText(readFileSync(join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), 'utf8')).events, ctx);
    const sections = ctx.split('=== SECTION ').slice(1);
    // Each child's context is the task line plus '=== SECTION ' + the section: the section's text is the copy.
    const expected = sections.reduce((n, s) => n + s.length, 0) + sections.length * '=== SECTION '.length;
    expect(r.session.sentToChildrenChars).toBe(expected);
    expect(r.runs.filter((x) => x.depth === 1)).toHaveLength(3);
  });
});
