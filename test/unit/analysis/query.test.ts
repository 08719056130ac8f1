// Tree queries with known answers over generated sessions (test/support/session-folder.ts),
// the scenario of the trajectory tests, and errors that point at the character.
import { describe, expect, it } from 'vitest';
import { ContextPrints } from '../../../src-shared/analysis/context-printed.ts';
import { emptyLabels, readLabelsText } from '../../../src-shared/analysis/labels.ts';
import { buildSessionDoc, type SessionDoc } from '../../../src-shared/analysis/query-document.ts';
import { compileQuery, QueryError, type QueryMatch } from '../../../src-shared/analysis/query.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { KNOWN, sessionEvents } from '../../support/session-folder.ts';
import { scenario } from '../trajectory/synthetic.ts';

const N = 36;
const docs: SessionDoc[] = Array.from({ length: N }, (_, i) =>
  buildSessionDoc({ file: `s${i}`, format: 'native', traj: reduceEvents(sessionEvents(i).events), labels: emptyLabels() }),
);

async function all(expr: string): Promise<QueryMatch[]> {
  const q = compileQuery(expr);
  return (await Promise.all(docs.map((d) => q.run(d)))).flat();
}
const indices = (pred: (i: number) => boolean): number[] => Array.from({ length: N }, (_, i) => i).filter(pred);

describe('tree queries over generated sessions', () => {
  it('sessions whose root answered but a depth-2 run hit its iteration limit', async () => {
    const m = await all('runs[depth = 0 and answered] and runs[depth = 2 and "max_iterations" in limits]');
    expect(m.map((x) => x.file)).toEqual(indices(KNOWN.rootAnsweredDeepLimit).map((i) => `s${i}`));
    expect(m.every((x) => x.target === 'session' && x.kind === 'session')).toBe(true);
  });

  it('the same question walking the tree from the grandchild to its root', async () => {
    const m = await all('runs[stopReason = "max_iterations" and depth = 2 and $root($).answered]');
    expect(m.map((x) => x.target)).toEqual(indices(KNOWN.rootAnsweredDeepLimit).map((i) => `run:s${i}-grand`));
  });

  it('sub-calls whose prompt exceeded 100,000 characters', async () => {
    const m = await all('calls[promptChars > 100000]');
    expect(m.map((x) => x.target)).toEqual(indices(KNOWN.bigPrompt).map((i) => `call:s${i}-llm`));
    expect(m[0]!.what).toMatch(/^llm call in s0-root iteration 1, prompt 100001 chars/);
  });

  it('runs that never printed any of their context', async () => {
    const m = await all('runs[printedContext = false]');
    const expected = indices(() => true).flatMap((i) => [
      ...(KNOWN.childPrinted(i) ? [] : [`run:s${i}-child`]),
      ...(KNOWN.hasGrandchild(i) ? [`run:s${i}-grand`] : []),
    ]);
    expect(m.map((x) => x.target)).toEqual(expected);
    // Root runs' context is not in the log: unknown, not false.
    expect(docs[0]!.runs[0]!.printedContext).toBeNull();
  });

  it('parents and children by function, and iterations as targets', async () => {
    expect((await all('runs[$parent($).depth = 1]')).map((x) => x.target)).toEqual(
      indices(KNOWN.hasGrandchild).map((i) => `run:s${i}-grand`),
    );
    expect((await all('runs[$count($children($)) = 0 and depth = 1]')).length).toBe(N - indices(KNOWN.hasGrandchild).length);
    expect((await all('calls[kind = "rlm" and $child($).answered = false]')).map((x) => x.target)).toEqual(
      indices(KNOWN.hasGrandchild).map((i) => `call:s${i}-deep`),
    );
    const it = await all('runs[depth = 2].iterations[iteration = 3]');
    expect(it.map((x) => x.target)).toEqual(indices(KNOWN.hasGrandchild).map((i) => `iteration:s${i}-grand#3`));
    expect(it[0]!.kind).toBe('iteration');
  });

  it('labels are part of the document', async () => {
    const traj = reduceEvents(scenario().events);
    const labels = readLabelsText(
      [
        { v: 1, op: 'add', target: 'run:root0/c2', label: 'missed-evidence', at: '1' },
        { v: 1, op: 'add', target: 'call:b1', label: 'good-decomposition', at: '1' },
        { v: 1, op: 'note', target: 'session', text: 'check', at: '1' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const doc = buildSessionDoc({ file: 'f', format: 'native', traj, labels });
    const q = async (e: string) => (await compileQuery(e).run(doc)).map((m) => m.target);
    expect(await q('runs["missed-evidence" in labels]')).toEqual(['run:root0/c2']);
    expect(await q('calls["good-decomposition" in labels]')).toEqual(['call:b1']);
    expect(await q('note = "check"')).toEqual(['session']);
    expect(await q('runs["nothing" in labels]')).toEqual([]);
  });
});

describe('values that are not runs, iterations or calls', () => {
  const doc = docs[0] as SessionDoc;
  const run = async (expr: string): Promise<QueryMatch[]> => compileQuery(expr).run(doc);

  it('match the session when one is truthy, and are shown whole, zeros included', async () => {
    const depths = doc.runs.map((r) => r.depth);
    expect(depths).toContain(0);
    const m = await run('runs.depth');
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ target: 'session', kind: 'session', what: JSON.stringify(depths) });
  });

  it('match nothing when every one is falsy', async () => {
    expect(await run('runs[depth = 0].depth')).toEqual([]);
    expect(await run('$count(runs[depth > 99])')).toEqual([]);
    expect(await run('[0, false, null, ""]')).toEqual([]);
  });
});

describe('query errors', () => {
  it('name the character of a syntax error', () => {
    expect(() => compileQuery('runs[depth = ]')).toThrowError(/^bad query at character 14: .*\nruns\[depth = \]\n {13}\^$/s);
    expect(() => compileQuery('  ')).toThrowError(QueryError);
  });

  it('name the file and character of a failure while evaluating', async () => {
    await expect(compileQuery('runs[$nope(1)]').run(docs[0]!)).rejects.toThrowError(/^query failed on s0 at character \d+: /);
  });
});

describe('printed the context', () => {
  const context = Array.from({ length: 400 }, (_, i) => `line ${i}: ${'abcdefghij'.repeat(3)}\n`).join('');
  const prints = new ContextPrints(context);

  it('catches any copied span of 95 characters or more, wherever it starts', () => {
    for (let start = 0; start < 300; start += 7) expect(prints.seenIn(`>> ${context.slice(start, start + 95)} <<`)).toBe(true);
  });

  it('does not see text that is not in the context, or too short a copy', () => {
    expect(prints.seenIn('x'.repeat(500))).toBe(false);
    expect(prints.seenIn(context.slice(10, 60))).toBe(false);
    expect(prints.seenIn('')).toBe(false);
  });

  it('compares a short context whole', () => {
    const short = new ContextPrints('needle: 42');
    expect(short.seenIn('found needle: 42 here')).toBe(true);
    expect(short.seenIn('needle: 4')).toBe(false);
  });
});
