// The sweep's grid file: parsing (JSON and YAML), validation against eval's flags with errors
// that name the axis and the value, the cartesian product, stable ids and the eval flags.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cartesian,
  configId,
  evalArgs,
  GridError,
  gridConfigs,
  parseGrid,
  readGridFile,
  type FlagSpec,
} from '../../../src-main/eval/sweep/grid.ts';

const FLAGS = new Map<string, FlagSpec>(
  [
    { name: 'model', takesValue: true, negatable: false },
    { name: 'max-depth', takesValue: true, negatable: false },
    { name: 'max-iterations', takesValue: true, negatable: false },
    { name: 'retry-errors', takesValue: false, negatable: false },
    { name: 'stream', takesValue: false, negatable: true },
    { name: 'output', takesValue: true, negatable: false },
  ].map((f) => [f.name, f]),
);

const tmp = mkdtempSync(join(tmpdir(), 'rlm-grid-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('parseGrid', () => {
  it('reads axes and fixed flags', () => {
    const g = parseGrid({ axes: { model: ['a', 'b'], 'max-depth': [1, 2, 3] }, fixed: { 'max-iterations': 4 } }, FLAGS);
    expect(g.axes).toEqual([
      { name: 'model', values: ['a', 'b'] },
      { name: 'max-depth', values: [1, 2, 3] },
    ]);
    expect(g.fixed).toEqual({ 'max-iterations': 4 });
  });

  const bad: [string, unknown, RegExp][] = [
    [
      'a misspelt axis, with the flag it may mean',
      { axes: { 'max-dept': [1] } },
      /axis "max-dept" is not a flag of rlm-studio eval \(did you mean "max-depth"\?\)/,
    ],
    ['an empty axis', { axes: { model: [] } }, /axis "model": must be a non-empty list/],
    [
      'a value that is not a scalar',
      { axes: { model: ['a', { x: 1 }] } },
      /axis "model": value \{"x":1\} is not a string, a number or a boolean/,
    ],
    ['a repeated value', { axes: { 'max-depth': [1, 1] } }, /axis "max-depth": value 1 is listed twice/],
    ['a boolean for a flag that takes a value', { axes: { 'max-depth': [true] } }, /axis "max-depth": value true is a boolean/],
    ['a value for a switch', { axes: { 'retry-errors': ['yes'] } }, /axis "retry-errors": value "yes" must be true or false/],
    ['a flag the sweep sets', { axes: { output: ['x'] } }, /axis "output": not allowed in a grid/],
    ['an unknown key', { axes: { model: ['a'] }, fixd: {} }, /unknown key\(s\) in the grid: "fixd"/],
    ['no axes', { axes: {} }, /"axes" is empty/],
    ['a flag both fixed and an axis', { axes: { model: ['a'] }, fixed: { model: 'b' } }, /"model" is both an axis and fixed/],
    ['not an object', [1, 2], /must be an object with "axes"/],
  ];
  for (const [what, raw, message] of bad) {
    it(`refuses ${what}`, () => {
      expect(() => parseGrid(raw, FLAGS)).toThrow(GridError);
      expect(() => parseGrid(raw, FLAGS)).toThrow(message);
    });
  }
});

describe('grid files', () => {
  it('reads JSON, and YAML by its extension, to the same grid', async () => {
    writeFileSync(join(tmp, 'g.json'), JSON.stringify({ axes: { model: ['a', 'b'], 'max-depth': [1, 2] }, fixed: { stream: false } }));
    writeFileSync(join(tmp, 'g.yaml'), 'axes:\n  model: [a, b]\n  max-depth:\n    - 1\n    - 2\nfixed:\n  stream: false\n');
    const j = await readGridFile(join(tmp, 'g.json'), FLAGS);
    expect(await readGridFile(join(tmp, 'g.yaml'), FLAGS)).toEqual(j);
  });

  it('names the file and what is wrong with it', async () => {
    writeFileSync(join(tmp, 'broken.json'), '{"axes": ');
    await expect(readGridFile(join(tmp, 'broken.json'), FLAGS)).rejects.toThrow(/--grid .*broken\.json: not valid JSON/);
    writeFileSync(join(tmp, 'broken.yml'), 'axes: [\n');
    await expect(readGridFile(join(tmp, 'broken.yml'), FLAGS)).rejects.toThrow(/--grid .*broken\.yml: not valid YAML/);
    await expect(readGridFile(join(tmp, 'none.json'), FLAGS)).rejects.toThrow(/--grid .*none\.json: cannot read it \(ENOENT\)/);
    writeFileSync(join(tmp, 'typo.json'), JSON.stringify({ axes: { modle: ['a'] } }));
    await expect(readGridFile(join(tmp, 'typo.json'), FLAGS)).rejects.toThrow(/typo\.json: axis "modle" .*did you mean "model"/);
  });
});

describe('configurations', () => {
  it('is the cartesian product, the first axis varying slowest', () => {
    const axes = [
      { name: 'model', values: ['a', 'b'] },
      { name: 'max-depth', values: [1, 2, 3] },
    ];
    expect(cartesian(axes)).toEqual([
      { model: 'a', 'max-depth': 1 },
      { model: 'a', 'max-depth': 2 },
      { model: 'a', 'max-depth': 3 },
      { model: 'b', 'max-depth': 1 },
      { model: 'b', 'max-depth': 2 },
      { model: 'b', 'max-depth': 3 },
    ]);
    expect(cartesian([...axes, { name: 'stream', values: [true, false] }])).toHaveLength(12);
  });

  it('gives each configuration a stable id and a readable name', () => {
    const configs = gridConfigs({
      axes: [
        { name: 'model', values: ['a', 'b'] },
        { name: 'max-depth', values: [1, 2] },
      ],
      fixed: {},
    });
    expect(configs.map((c) => c.name)).toEqual([
      'model=a, max-depth=1',
      'model=a, max-depth=2',
      'model=b, max-depth=1',
      'model=b, max-depth=2',
    ]);
    expect(new Set(configs.map((c) => c.id)).size).toBe(4);
    for (const c of configs) expect(c.id).toMatch(/^c-[0-9a-f]{10}$/);
    // The same settings in another order, or in a grown grid, keep their id (and so their folder).
    expect(configId({ 'max-depth': 2, model: 'b' })).toBe(configs[3]!.id);
    const grown = gridConfigs({
      axes: [
        { name: 'model', values: ['a', 'b', 'c'] },
        { name: 'max-depth', values: [1, 2] },
      ],
      fixed: {},
    });
    expect(grown.filter((c) => configs.some((o) => o.id === c.id))).toHaveLength(4);
    // 1 and "1" are different settings.
    expect(configId({ model: 1 })).not.toBe(configId({ model: '1' }));
  });

  it('turns settings into eval flags', () => {
    expect(evalArgs({ model: 'a', 'max-depth': 2, 'retry-errors': true, stream: false }, FLAGS)).toEqual([
      '--model',
      'a',
      '--max-depth',
      '2',
      '--retry-errors',
      '--no-stream',
    ]);
    expect(evalArgs({ 'retry-errors': false }, FLAGS)).toEqual([]);
  });
});
