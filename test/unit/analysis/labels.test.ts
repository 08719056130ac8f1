import { describe, expect, it } from 'vitest';
import {
  checkTarget,
  chipsByRun,
  labelsList,
  labelsOf,
  parseTarget,
  readLabelsText,
  targetId,
  type LabelRecord,
} from '../../../src-shared/analysis/labels.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { scenario } from '../trajectory/synthetic.ts';

const line = (r: LabelRecord): string => JSON.stringify(r);

describe('label targets', () => {
  it('round-trip through their ids, run ids with slashes and colons included', () => {
    for (const t of [
      { kind: 'session' as const },
      { kind: 'run' as const, runId: 'r0/2.0.1' },
      { kind: 'iteration' as const, runId: 'r0/2.0.1', iteration: 3 },
      { kind: 'call' as const, callId: 'r0:2.0.1' },
    ]) {
      expect(parseTarget(targetId(t))).toEqual(t);
    }
  });

  it('name what a target looks like when one is malformed', () => {
    for (const bad of ['run:', 'iteration:r0', 'iteration:r0#x', 'thing:1', 'r0']) {
      expect(parseTarget(bad)).toEqual({ error: expect.stringMatching(/use session, run:RUN_ID/) as unknown });
    }
  });

  it('are checked against the run tree', () => {
    const traj = reduceEvents(scenario().events);
    const check = (id: string) => {
      const t = parseTarget(id);
      if ('error' in t) throw new Error(t.error);
      return checkTarget(traj, t);
    };
    expect(check('run:root0/c1')).toBeNull();
    expect(check('iteration:root0#2')).toBeNull();
    expect(check('call:b1')).toBeNull();
    expect(check('session')).toBeNull();
    expect(check('run:nope')).toMatch(/no run nope in this log \(runs: root0, /);
    expect(check('iteration:root0#9')).toMatch(/has no iteration 9 \(it has 1, 2, 3\)/);
    expect(check('call:zz')).toMatch(/no sub-call zz/);
  });
});

describe('labels on the tree', () => {
  it('gathers a run’s own labels, then its iterations’ in order, then its sub-calls’; unknown targets are left out', () => {
    const traj = reduceEvents(scenario().events);
    const call = traj.calls.get('b1' as never)!;
    const at = (target: string, ...labels: string[]) => ({ target, labels: labels.map((label) => ({ label })) });
    const chips = chipsByRun(
      [
        at('call:b1', 'slow'),
        at('iteration:root0#2', 'bad-split'),
        at('session', 'whole'),
        at('run:root0', 'good', 'reviewed'),
        at('iteration:root0#1', 'first'),
        at('call:zz', 'nowhere'),
        at('bogus', 'x'),
      ],
      traj,
    );
    const shown = (runId: string) => chips.get(runId)?.map((c) => (c.where ? `${c.where}: ${c.label}` : c.label));
    const root = ['good', 'reviewed', 'it 1: first', 'it 2: bad-split'];
    const slow = `it ${call.iteration} call: slow`;
    if (call.runId === 'root0') expect(shown('root0')).toEqual([...root, slow]);
    else {
      expect(shown('root0')).toEqual(root);
      expect(shown(call.runId)).toEqual([slow]);
    }
    expect([...chips.values()].flat().map((c) => c.label)).not.toContain('nowhere');
    expect([...chips.values()].flat().map((c) => c.label)).not.toContain('whole');
  });
});

describe('the labels sidecar', () => {
  it('folds adds, removes and notes in order; the latest add of a label wins', () => {
    const text = [
      line({ v: 1, op: 'add', target: 'run:a', label: 'good-decomposition', at: '1' }),
      line({ v: 1, op: 'add', target: 'run:a', label: 'missed-evidence', note: 'first', at: '2' }),
      line({ v: 1, op: 'add', target: 'run:a', label: 'missed-evidence', note: 'second', at: '3' }),
      line({ v: 1, op: 'remove', target: 'run:a', label: 'good-decomposition', at: '4' }),
      line({ v: 1, op: 'add', target: 'call:c', label: 'x', at: '5' }),
      line({ v: 1, op: 'remove', target: 'call:c', label: 'x', at: '6' }),
      line({ v: 1, op: 'note', target: 'session', text: 'look again', at: '7' }),
      '',
    ].join('\n');
    const state = readLabelsText(text);
    expect(state.problems).toEqual([]);
    expect(state.records).toBe(7);
    expect(labelsOf(state, 'run:a')).toEqual(['missed-evidence']);
    expect(labelsList(state)).toEqual([
      { target: 'run:a', labels: [{ label: 'missed-evidence', note: 'second', at: '3' }], note: null },
      { target: 'session', labels: [], note: 'look again' },
    ]);
  });

  it('keeps reading past bad lines and a cut last line, naming each', () => {
    const good = line({ v: 1, op: 'add', target: 'run:a', label: 'ok', at: '1' });
    const state = readLabelsText(
      [good, 'not json', JSON.stringify({ v: 1, op: 'add', target: 'run:a', label: 'has space', at: '1' }), good, '{"v":1,"op":"ad'].join(
        '\n',
      ),
    );
    expect(labelsOf(state, 'run:a')).toEqual(['ok']);
    expect(state.problems).toEqual([
      'line 2: not JSON; ignored',
      expect.stringMatching(/^line 3: label: a label is 1-64 letters/) as unknown,
      'line 5: cut short (the last line has no end); ignored',
    ]);
  });
});
