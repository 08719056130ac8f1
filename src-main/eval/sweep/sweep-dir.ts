// A sweep folder: sweep.json (the manifest: the dataset, the grid, every configuration with its
// id, name, settings, eval flags and evaluation folder) and configs/<id>/, one evaluation
// folder per configuration. Reading it gives each configuration's sessions from its
// results.jsonl and the sweep's figures (src-shared/analysis/sweep.ts). The manifest is
// written through a temporary file and a rename, so a kill leaves the old one or the new one.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  summarizeSweep,
  type AxisValue,
  type SweepConfigInput,
  type SweepSessionRow,
  type SweepSummary,
} from '../../../src-shared/analysis/sweep.ts';
import { readResults } from '../results.ts';
import type { Grid, SweepConfig } from './grid.ts';

export const MANIFEST = 'sweep.json';
export const SUMMARY = 'sweep-summary.json';

export class SweepDirError extends Error {
  override name = 'SweepDirError';
  readonly code: 'not_found' | 'bad_request';
  constructor(code: 'not_found' | 'bad_request', message: string) {
    super(message);
    this.code = code;
  }
}

export interface ManifestConfig extends SweepConfig {
  /** 1-based position in the grid's order. */
  index: number;
  /** The evaluation folder, relative to the sweep folder. */
  dir: string;
  /** The `eval` flags this configuration runs with (after DATASET, before -o). */
  args: string[];
}

export interface SweepManifest {
  sweep: 1;
  /** The dataset as given, and resolved. */
  dataset: string;
  datasetPath: string;
  grid: Grid;
  /** Flags given to `sweep` itself that every configuration gets (the grid's win). */
  common: Record<string, AxisValue>;
  queue: string | null;
  createdAt: string;
  updatedAt: string;
  configs: ManifestConfig[];
}

export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}

export function readManifest(dir: string, given = dir): SweepManifest {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new SweepDirError('not_found', `cannot open the sweep ${given}: no such directory`);
  }
  if (!isDir) throw new SweepDirError('bad_request', `${given} is not a directory (a sweep is the -o folder of rlm-studio sweep)`);
  const path = join(dir, MANIFEST);
  if (!existsSync(path))
    throw new SweepDirError('bad_request', `${given} is not a sweep folder: it has no ${MANIFEST} (written by rlm-studio sweep -o)`);
  let m: SweepManifest;
  try {
    m = JSON.parse(readFileSync(path, 'utf8')) as SweepManifest;
  } catch (err) {
    throw new SweepDirError('bad_request', `${given}/${MANIFEST} is not JSON (${(err as Error).message})`);
  }
  if (m.sweep !== 1 || !Array.isArray(m.configs) || m.grid === undefined || !Array.isArray(m.grid.axes))
    throw new SweepDirError('bad_request', `${given}/${MANIFEST} is not a sweep manifest (no "sweep": 1, "grid" or "configs")`);
  return m;
}

/** Sessions the evaluation plans (progress.json's total), or null before it started. */
function plannedSessions(dir: string): number | null {
  try {
    const p = JSON.parse(readFileSync(join(dir, 'progress.json'), 'utf8')) as { total?: unknown };
    return typeof p.total === 'number' ? p.total : null;
  } catch {
    return null;
  }
}

function sessionRows(evalDir: string): { rows: SweepSessionRow[]; skipped: number } {
  const { results, skipped } = readResults(join(evalDir, 'results.jsonl'));
  return {
    rows: results.map((r) => ({
      taskId: r.id,
      correct: r.correct,
      costUsd: r.usage.costUsd,
      tokens: r.usage.inputTokens + r.usage.outputTokens,
      durationMs: r.durationMs,
      calls: r.usage.calls,
      stopReason: r.stopReason,
    })),
    skipped,
  };
}

export interface SweepRead {
  dir: string;
  manifest: SweepManifest;
  /** Each configuration's input to the figures, in grid order (its sessions included). */
  inputs: SweepConfigInput[];
  summary: SweepSummary;
  problems: string[];
}

export function readSweepDir(path: string): SweepRead {
  const dir = resolve(path);
  const manifest = readManifest(dir, path);
  const problems: string[] = [];
  const inputs = manifest.configs.map((c): SweepConfigInput => {
    const evalDir = join(dir, c.dir);
    const { rows, skipped } = sessionRows(evalDir);
    if (skipped > 0) problems.push(`${c.name}: ${skipped} unreadable line(s) of results.jsonl skipped`);
    return { id: c.id, name: c.name, settings: c.settings, dir: evalDir, sessionsPlanned: plannedSessions(evalDir), sessions: rows };
  });
  return { dir, manifest, inputs, summary: summarizeSweep(manifest.grid.axes, inputs), problems };
}

/** What `sweep --json` and `sweep-summary --json` print, and sweep-summary.json holds. */
export function sweepSummaryJson(read: SweepRead): SweepSummaryJson {
  return {
    dir: read.dir,
    dataset: read.manifest.dataset,
    grid: read.manifest.grid,
    ...read.summary,
    problems: read.problems,
  };
}

export type SweepSummaryJson = SweepSummary & { dir: string; dataset: string; grid: Grid; problems: string[] };
