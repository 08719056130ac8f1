import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asRunId } from '../../../src-shared/events.ts';
import { blocksOf, reduceEvents, type TrajectoryState } from '../../../src-shared/trajectory/index.ts';
import { renderWorkedExample, workedExamplesSection, WorkedExampleError } from '../../../src-main/engine/worked-example.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { loadWorkedExamples } from '../../../src-main/logs/worked-examples.ts';
import { blockEnd, blockStart, iterEnd, iterStart, reply, runEnd, runStart, Script } from '../trajectory/synthetic.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

const NATIVE = resolve(import.meta.dirname, '../../integration/rerun/fixtures/js-recursive.rlm.jsonl');

async function stateOf(path: string): Promise<TrajectoryState> {
  const c = await readLogFile(path);
  return reduceEvents(c.events, c.header);
}

/** The code blocks of a rendering; throws when a fence is left open. */
function fencesOf(text: string): string[] {
  const codes: string[] = [];
  let open: string | null = null;
  let body: string[] = [];
  for (const line of text.split('\n')) {
    if (open === null) {
      const m = /^(`{3,})repl$/.exec(line);
      if (m) {
        open = m[1]!;
        body = [];
      }
    } else if (line === open) {
      codes.push(body.join('\n'));
      open = null;
    } else {
      body.push(line);
    }
  }
  if (open !== null) throw new Error('a fence is left open');
  return codes;
}

/** The root's code blocks, in order, as the log has them. */
function rootCodes(state: TrajectoryState): string[] {
  const root = state.runs.get(state.roots[0]!)!;
  return root.iterations.flatMap((it) => blocksOf(it).map((b) => b.start!.code.replace(/\n$/, '')));
}

describe('renderWorkedExample', () => {
  it('a reference log: the query, every root block verbatim in repl fences, the outputs seen, the answer, its language', async () => {
    const state = await stateOf(join(REFERENCE_FIXTURES, 'c_recursive.jsonl'));
    const ex = renderWorkedExample(state, '/x/c_recursive.jsonl', 100_000);
    expect(ex.repl).toBe('python');
    expect(ex.source).toBe('/x/c_recursive.jsonl');
    expect(ex.text).toContain('a Python REPL');
    expect(ex.text).toContain('Query: Which service section of the log has the most ERROR lines');
    expect(fencesOf(ex.text)).toEqual(rootCodes(state));
    expect(ex.text).toContain("['11', '16', '5']"); // an output the root saw
    expect(ex.text).toContain('Final answer: search with 16 ERROR lines');
    // The child runs' own code is not the root's: not shown.
    const childCode = [...state.runs.values()]
      .filter((r) => r.depth > 0)
      .flatMap((r) => r.iterations.flatMap((it) => blocksOf(it).map((b) => b.start!.code)));
    expect(childCode.length).toBeGreaterThan(0);
    for (const code of childCode) expect(ex.text).not.toContain(code.trim());
  });

  it('a native log: JavaScript, blocks verbatim, answer', async () => {
    const state = await stateOf(NATIVE);
    const ex = renderWorkedExample(state, NATIVE, 100_000);
    expect(ex.repl).toBe('javascript');
    expect(ex.text).toContain('a JavaScript REPL');
    expect(fencesOf(ex.text)).toEqual(rootCodes(state));
    const answer = state.runs.get(state.roots[0]!)!.end!.answer!;
    expect(ex.text).toContain(`Final answer: ${answer}`);
  });

  it('every budget is respected: outputs shortened first, then middle turns left out, fences always closed, the answer always there', async () => {
    for (const file of ['a_needle.jsonl', 'b_aggregate.jsonl', 'd_max_iterations.jsonl', 'e_code_errors.jsonl']) {
      const state = await stateOf(join(REFERENCE_FIXTURES, file));
      const full = renderWorkedExample(state, file, 10_000_000).text;
      let fitted = 0;
      let elided = 0;
      for (let budget = 200; budget <= full.length + 500; budget = Math.ceil(budget * 1.3)) {
        let text: string;
        try {
          text = renderWorkedExample(state, file, budget).text;
        } catch (err) {
          expect(err).toBeInstanceOf(WorkedExampleError);
          expect((err as Error).message).toContain(file);
          expect((err as Error).message).toContain(`${budget} characters`);
          continue;
        }
        fitted++;
        expect(text.length, `${file} at ${budget}`).toBeLessThanOrEqual(budget);
        const codes = fencesOf(text);
        expect(codes.length).toBeGreaterThan(0);
        for (const code of codes) expect(rootCodes(state)).toContain(code); // never cut inside a block
        expect(text).toMatch(/Final answer: |ended without an answer/);
        if (/left out to fit the budget/.test(text)) elided++;
      }
      expect(fitted, file).toBeGreaterThan(1);
      if (rootCodes(state).length > 2) expect(elided, file).toBeGreaterThan(0);
    }
  });

  it('keeps the first and last turns when it leaves turns out', async () => {
    const state = await stateOf(join(REFERENCE_FIXTURES, 'b_aggregate.jsonl'));
    const codes = rootCodes(state);
    expect(codes.length).toBeGreaterThan(3);
    const full = renderWorkedExample(state, 'd', 10_000_000).text.length;
    let text = '';
    for (let budget = full; budget > 100; budget -= 50) {
      try {
        text = renderWorkedExample(state, 'd', budget).text;
      } catch {
        break;
      }
    }
    expect(text).toMatch(/Turns \d+–\d+ left out to fit the budget/);
    const shown = fencesOf(text);
    expect(shown[0]).toBe(codes[0]);
    expect(shown[shown.length - 1]).toBe(codes[codes.length - 1]);
  });

  it('a block containing backticks gets a longer fence', () => {
    const s = new Script();
    const r = { runId: asRunId('r'), parentRunId: null, depth: 0 };
    runStart(s, r);
    iterStart(s, r, 1);
    const code = 'const md = "```repl\\nx\\n```";\nprint(md);';
    reply(s, r, 1, '```repl\n' + code + '\n```');
    blockStart(s, r, 1, 0, code);
    blockEnd(s, r, 1, 0, { stdout: 'done\n' });
    iterEnd(s, r, 1, 'reply');
    runEnd(s, r, 'ok', 1, 100);
    const text = renderWorkedExample(reduceEvents(s.events), 'bt.rlm.jsonl', 10_000).text;
    expect(text).toContain('````repl\n' + code + '\n````');
    expect(fencesOf(text)).toEqual([code]);
  });

  it('a log whose root wrote no code is refused by name', () => {
    const s = new Script();
    const r = { runId: asRunId('r'), parentRunId: null, depth: 0 };
    runStart(s, r);
    iterStart(s, r, 1);
    reply(s, r, 1, 'no code');
    iterEnd(s, r, 1, 'no code', 'x');
    runEnd(s, r, 'x', 1, 100);
    expect(() => renderWorkedExample(reduceEvents(s.events), 'empty.rlm.jsonl', 10_000)).toThrow(
      /empty\.rlm\.jsonl has no root iteration with code/,
    );
  });
});

describe('workedExamplesSection', () => {
  it('heads the examples and says when an example is in another language than the run', () => {
    const section = workedExamplesSection(
      [
        { source: '/a', repl: 'python', text: 'EXAMPLE-A' },
        { source: '/b', repl: 'javascript', text: 'EXAMPLE-B' },
      ],
      'javascript',
    );
    expect(section).toMatch(/^\n\nWorked examples\n/);
    expect(section).toContain("--- Worked example 1 ---\nEXAMPLE-A\n(This example's code is Python; your REPL is JavaScript");
    expect(section).toContain('--- Worked example 2 ---\nEXAMPLE-B');
    expect(section.split("This example's code is").length).toBe(2);
  });
});

describe('loadWorkedExamples', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-examples-'));

  it('shares the budget between the logs and records absolute paths', async () => {
    const out = await loadWorkedExamples([join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), NATIVE], 10_000);
    expect(out.map((e) => e.source)).toEqual([join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), NATIVE]);
    for (const e of out) expect(e.text.length).toBeLessThanOrEqual(5_000);
    // The native log's full rendering is longer than its share: it was shortened to fit.
    expect(renderWorkedExample(await stateOf(NATIVE), NATIVE, 1e8).text.length).toBeGreaterThan(5_000);
  });

  it('names the file that is missing, not a log, or too big for the budget', async () => {
    await expect(loadWorkedExamples([join(dir, 'nope.jsonl')], 1000)).rejects.toThrow(
      /cannot read example log .*nope\.jsonl: no such file/,
    );
    const notLog = join(dir, 'notes.txt');
    writeFileSync(notLog, 'just some notes\n');
    await expect(loadWorkedExamples([notLog], 1000)).rejects.toThrow(
      /example .*notes\.txt is not a readable log: not a log this reader knows/,
    );
    await expect(loadWorkedExamples([dir], 1000)).rejects.toThrow(/cannot read example log .*rlm-examples-/);
    await expect(loadWorkedExamples([join(REFERENCE_FIXTURES, 'c_recursive.jsonl')], 100)).rejects.toThrow(
      /budget of 100 characters is too small for .*c_recursive\.jsonl/,
    );
    await expect(loadWorkedExamples([join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), NATIVE], 1500)).rejects.toThrow(
      /each of the 2 examples gets 750 of the total 1500/,
    );
    await expect(loadWorkedExamples([NATIVE], 0)).rejects.toThrow(/positive whole number/);
  });
});
