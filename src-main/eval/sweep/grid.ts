// A sweep's grid file (JSON, or YAML by its extension): axes of `eval` flags, each a list of
// values, and fixed flags for every configuration. Checked against the flags `eval` takes, so
// a misspelt axis or a value of the wrong shape is named before anything runs; the cartesian
// product of the axes is the list of configurations, each with a stable id (a hash of its
// settings: the same settings keep their folder when the grid grows).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AxisValue } from '../../../src-shared/analysis/sweep.ts';

export class GridError extends Error {
  override name = 'GridError';
}

export interface Grid {
  axes: { name: string; values: AxisValue[] }[];
  fixed: Record<string, AxisValue>;
}

/** An `eval` flag as the grid may name it (without the leading dashes). */
export interface FlagSpec {
  name: string;
  /** Takes a value (`--max-depth 2`); else a switch (`--retry-errors`). */
  takesValue: boolean;
  /** The switch has a `--no-NAME` form (`stream`). */
  negatable: boolean;
}

/** Flags the sweep sets itself: a grid naming them would fight it. */
const RESERVED = new Map<string, string>([
  ['output', 'each configuration writes to its own folder under the sweep folder (sweep -o DIR)'],
  ['out', 'each configuration writes to its own folder under the sweep folder (sweep -o DIR)'],
  ['json', 'give --json to sweep itself'],
  ['queue', 'give --queue to sweep itself'],
  ['shard', 'a sweep runs whole configurations'],
  ['progress', 'give --no-progress to sweep itself'],
  ['no-progress', 'give --no-progress to sweep itself'],
]);

const isScalar = (v: unknown): v is AxisValue =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

const show = (v: unknown): string => JSON.stringify(v) ?? String(v);

/** The closest known flag to a misspelt one (edit distance ≤ 3), for the error. */
function nearest(name: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = 4;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

function checkFlag(where: string, name: string, value: AxisValue, flags: ReadonlyMap<string, FlagSpec>): void {
  const reserved = RESERVED.get(name);
  if (reserved !== undefined) throw new GridError(`${where} "${name}": not allowed in a grid (${reserved})`);
  const spec = flags.get(name);
  if (!spec) {
    const near = nearest(name, [...flags.keys()]);
    throw new GridError(`${where} "${name}" is not a flag of rlm-studio eval${near ? ` (did you mean "${near}"?)` : ''}`);
  }
  if (spec.takesValue && typeof value === 'boolean')
    throw new GridError(`${where} "${name}": value ${show(value)} is a boolean, but --${name} takes a value (a string or a number)`);
  if (!spec.takesValue && typeof value !== 'boolean')
    throw new GridError(`${where} "${name}": value ${show(value)} must be true or false (--${name} is a switch)`);
}

/** Parses and checks a grid object (what the file holds). */
export function parseGrid(raw: unknown, flags: ReadonlyMap<string, FlagSpec>): Grid {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new GridError('the grid must be an object with "axes" (and optionally "fixed")');
  const o = raw as Record<string, unknown>;
  const extra = Object.keys(o).filter((k) => k !== 'axes' && k !== 'fixed');
  if (extra.length > 0)
    throw new GridError(`unknown key(s) in the grid: ${extra.map((k) => `"${k}"`).join(', ')} (it has "axes" and "fixed")`);
  const axesRaw = o['axes'];
  if (axesRaw === null || typeof axesRaw !== 'object' || Array.isArray(axesRaw))
    throw new GridError('"axes" must be an object: each key an eval flag (e.g. "max-depth"), each value a non-empty list of values');
  const axes: Grid['axes'] = [];
  for (const [name, values] of Object.entries(axesRaw as Record<string, unknown>)) {
    if (!Array.isArray(values) || values.length === 0)
      throw new GridError(`axis "${name}": must be a non-empty list of values, got ${show(values)}`);
    const seen = new Set<string>();
    for (const v of values) {
      if (!isScalar(v)) throw new GridError(`axis "${name}": value ${show(v)} is not a string, a number or a boolean`);
      checkFlag('axis', name, v, flags);
      const key = show(v);
      if (seen.has(key)) throw new GridError(`axis "${name}": value ${key} is listed twice`);
      seen.add(key);
    }
    axes.push({ name, values: values as AxisValue[] });
  }
  if (axes.length === 0) throw new GridError('"axes" is empty: name at least one eval flag to vary');
  const fixed: Record<string, AxisValue> = {};
  const fixedRaw = o['fixed'];
  if (fixedRaw !== undefined) {
    if (fixedRaw === null || typeof fixedRaw !== 'object' || Array.isArray(fixedRaw))
      throw new GridError('"fixed" must be an object of eval flags and their values');
    for (const [name, v] of Object.entries(fixedRaw as Record<string, unknown>)) {
      if (!isScalar(v)) throw new GridError(`fixed "${name}": value ${show(v)} is not a string, a number or a boolean`);
      checkFlag('fixed', name, v, flags);
      if (axes.some((a) => a.name === name)) throw new GridError(`"${name}" is both an axis and fixed: keep one`);
      fixed[name] = v;
    }
  }
  return { axes, fixed };
}

/** Reads a grid file: YAML when it ends in .yaml or .yml, else JSON. */
export async function readGridFile(path: string, flags: ReadonlyMap<string, FlagSpec>): Promise<Grid> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new GridError(`--grid ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let raw: unknown;
  if (/\.ya?ml$/i.test(path)) {
    const { parse } = await import('yaml');
    try {
      raw = parse(text);
    } catch (err) {
      throw new GridError(`--grid ${path}: not valid YAML (${(err as Error).message.split('\n')[0]})`);
    }
  } else {
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new GridError(`--grid ${path}: not valid JSON (${(err as Error).message}); a .yaml or .yml file is read as YAML`);
    }
  }
  try {
    return parseGrid(raw, flags);
  } catch (err) {
    if (err instanceof GridError) throw new GridError(`--grid ${path}: ${err.message}`);
    throw err;
  }
}

export interface SweepConfig {
  /** Stable: a hash of the settings, whatever the grid's order. */
  id: string;
  /** The settings in words: `model=a, max-depth=2`. */
  name: string;
  settings: Record<string, AxisValue>;
}

/** Every combination of the axes' values, the first axis varying slowest. */
export function cartesian(axes: Grid['axes']): Record<string, AxisValue>[] {
  let out: Record<string, AxisValue>[] = [{}];
  for (const axis of axes) out = out.flatMap((partial) => axis.values.map((v) => ({ ...partial, [axis.name]: v })));
  return out;
}

export function configId(settings: Record<string, AxisValue>): string {
  const canonical = JSON.stringify(
    Object.keys(settings)
      .sort()
      .map((k) => [k, settings[k]]),
  );
  return `c-${createHash('sha256').update(canonical).digest('hex').slice(0, 10)}`;
}

export function gridConfigs(grid: Grid): SweepConfig[] {
  return cartesian(grid.axes).map((settings) => ({
    id: configId(settings),
    name: Object.entries(settings)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', '),
    settings,
  }));
}

/** The eval flags of a configuration: the fixed ones, then its settings. */
export function evalArgs(flagsOf: Record<string, AxisValue>, specs: ReadonlyMap<string, FlagSpec>): string[] {
  const args: string[] = [];
  for (const [name, v] of Object.entries(flagsOf)) {
    if (typeof v === 'boolean') {
      if (v) args.push(`--${name}`);
      else if (specs.get(name)?.negatable) args.push(`--no-${name}`);
    } else args.push(`--${name}`, String(v));
  }
  return args;
}
