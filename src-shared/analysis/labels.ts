// Labels and notes on a session, a run, an iteration or a sub-call, kept in a sidecar file
// beside the log (`LOG.labels.jsonl`), never in the log itself. The sidecar is append-only:
// each line adds or removes a label or sets a note, and the current labels are the fold of
// the lines in order, so nothing is ever rewritten and the history stays readable.
//
// Target ids are stable for both log formats because they are built from the ids the log
// itself carries (native run and call ids are recorded; a reference log's are derived from
// its structure by the importer, the same on every read):
//   session                   the whole log
//   run:<runId>               a run
//   iteration:<runId>#<n>     iteration n (from 1) of a run
//   call:<callId>             a sub-call (llm_query, rlm_query or one item of a batch)
import { z } from 'zod';
import type { TrajectoryState } from '../trajectory/types.ts';

export type LabelTarget =
  | { kind: 'session' }
  | { kind: 'run'; runId: string }
  | { kind: 'iteration'; runId: string; iteration: number }
  | { kind: 'call'; callId: string };

export const SESSION_TARGET = 'session';

export function targetId(t: LabelTarget): string {
  switch (t.kind) {
    case 'session':
      return SESSION_TARGET;
    case 'run':
      return `run:${t.runId}`;
    case 'iteration':
      return `iteration:${t.runId}#${t.iteration}`;
    case 'call':
      return `call:${t.callId}`;
  }
}

/** Parses a target id; the message says what a target looks like. */
export function parseTarget(id: string): LabelTarget | { error: string } {
  if (id === SESSION_TARGET) return { kind: 'session' };
  const colon = id.indexOf(':');
  const kind = colon < 0 ? '' : id.slice(0, colon);
  const rest = colon < 0 ? '' : id.slice(colon + 1);
  if (kind === 'run' && rest !== '') return { kind: 'run', runId: rest };
  if (kind === 'call' && rest !== '') return { kind: 'call', callId: rest };
  if (kind === 'iteration') {
    const hash = rest.lastIndexOf('#');
    const n = Number(rest.slice(hash + 1));
    if (hash > 0 && Number.isInteger(n) && n >= 0) return { kind: 'iteration', runId: rest.slice(0, hash), iteration: n };
  }
  return { error: `bad target ${JSON.stringify(id)}: use session, run:RUN_ID, iteration:RUN_ID#N or call:CALL_ID` };
}

/** Whether the target names something in this trajectory; null when it does, else why not. */
export function checkTarget(traj: TrajectoryState, t: LabelTarget): string | null {
  switch (t.kind) {
    case 'session':
      return null;
    case 'run':
      return traj.runs.has(t.runId as never) ? null : `no run ${t.runId} in this log (runs: ${sample([...traj.runs.keys()])})`;
    case 'iteration': {
      const run = traj.runs.get(t.runId as never);
      if (!run) return `no run ${t.runId} in this log (runs: ${sample([...traj.runs.keys()])})`;
      return run.iterations.some((it) => it.iteration === t.iteration)
        ? null
        : `run ${t.runId} has no iteration ${t.iteration} (it has ${run.iterations.map((it) => it.iteration).join(', ') || 'none'})`;
    }
    case 'call':
      return traj.calls.has(t.callId as never) ? null : `no sub-call ${t.callId} in this log (calls: ${sample([...traj.calls.keys()])})`;
  }
}

function sample(ids: readonly string[]): string {
  if (ids.length === 0) return 'none';
  return ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more`;
}

/** A label name: what a person types and a query compares, so no spaces or odd characters. */
export const LabelName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a label is 1-64 letters, digits, "-", "_" or ".", starting with a letter or digit');

/** The user-defined label set (`rlm-labels.json`). */
export const LabelSet = z.strictObject({
  labels: z
    .array(z.strictObject({ name: LabelName, description: z.string().max(500).optional() }))
    .min(1)
    .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, 'label names must be unique'),
});
export type LabelSet = z.infer<typeof LabelSet>;

const Target = z.string().min(1).max(1000);
const At = z.string().min(1).max(40);

/** One line of the sidecar. */
export const LabelRecord = z.discriminatedUnion('op', [
  z.strictObject({
    v: z.literal(1),
    op: z.literal('add'),
    target: Target,
    label: LabelName,
    note: z.string().max(20_000).optional(),
    at: At,
  }),
  z.strictObject({ v: z.literal(1), op: z.literal('remove'), target: Target, label: LabelName, at: At }),
  /** A note on the target itself; an empty text clears it. */
  z.strictObject({ v: z.literal(1), op: z.literal('note'), target: Target, text: z.string().max(20_000), at: At }),
]);
export type LabelRecord = z.infer<typeof LabelRecord>;

interface AppliedLabel {
  label: string;
  note: string | null;
  at: string;
}

export interface TargetLabels {
  target: string;
  labels: AppliedLabel[];
  note: string | null;
}

export interface LabelsState {
  /** By target id; targets whose labels were all removed and have no note are dropped. */
  targets: Map<string, TargetLabels>;
  /** Lines that could not be read, with their line number (1-based); reading goes on. */
  problems: string[];
  /** Records read. */
  records: number;
}

export function emptyLabels(): LabelsState {
  return { targets: new Map(), problems: [], records: 0 };
}

/** Applies one record in place. */
function applyLabelRecord(state: LabelsState, r: LabelRecord): void {
  state.records++;
  let t = state.targets.get(r.target);
  if (!t) state.targets.set(r.target, (t = { target: r.target, labels: [], note: null }));
  if (r.op === 'add') {
    const entry = { label: r.label, note: r.note ?? null, at: r.at };
    const i = t.labels.findIndex((l) => l.label === r.label);
    if (i >= 0) t.labels[i] = entry;
    else t.labels.push(entry);
  } else if (r.op === 'remove') {
    t.labels = t.labels.filter((l) => l.label !== r.label);
  } else {
    t.note = r.text === '' ? null : r.text;
  }
  if (t.labels.length === 0 && t.note === null) state.targets.delete(r.target);
}

/** Folds a sidecar's text. A cut last line (a crash mid-append) is a problem, not an error. */
export function readLabelsText(text: string): LabelsState {
  const state = emptyLabels();
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const last = i === lines.length - 1;
      state.problems.push(`line ${i + 1}: ${last ? 'cut short (the last line has no end); ignored' : 'not JSON; ignored'}`);
      return;
    }
    const r = LabelRecord.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0];
      state.problems.push(
        `line ${i + 1}: ${issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'not a label record'}; ignored`,
      );
      return;
    }
    applyLabelRecord(state, r.data);
  });
  return state;
}

/** Labels as plain data for the protocol and the CLI, in a stable order. */
export function labelsList(state: LabelsState): TargetLabels[] {
  return [...state.targets.values()].sort((a, b) => a.target.localeCompare(b.target));
}

/** The label names of a target (empty when none). */
export function labelsOf(state: LabelsState, target: string): string[] {
  return state.targets.get(target)?.labels.map((l) => l.label) ?? [];
}

/** A label as a run's row shows it: the run's own (`where` null), or one of its iterations' or sub-calls'. */
export interface RunChip {
  label: string;
  /** "it 3" for iteration 3, "it 3 call" for a sub-call made in iteration 3; null for the run itself. */
  where: string | null;
  target: string;
}

/**
 * The labels of each run's row: its own, then its iterations' (in order), then its sub-calls'.
 * A sub-call's run comes from the trajectory, so one not read yet (a log still loading) has no
 * row yet either.
 */
export function chipsByRun(
  targets: readonly { target: string; labels: readonly { label: string }[] }[],
  traj: TrajectoryState,
): Map<string, RunChip[]> {
  const ranked: { runId: string; rank: number; chip: RunChip }[] = [];
  for (const t of targets) {
    const parsed = parseTarget(t.target);
    if ('error' in parsed) continue;
    let runId: string;
    let rank: number;
    let where: string | null;
    if (parsed.kind === 'run') [runId, rank, where] = [parsed.runId, 0, null];
    else if (parsed.kind === 'iteration') [runId, rank, where] = [parsed.runId, parsed.iteration, `it ${parsed.iteration}`];
    else if (parsed.kind === 'call') {
      const call = traj.calls.get(parsed.callId as never);
      if (!call) continue;
      [runId, rank, where] = [call.runId, 1e6 + call.iteration, `it ${call.iteration} call`];
    } else continue;
    for (const l of t.labels) ranked.push({ runId, rank, chip: { label: l.label, where, target: t.target } });
  }
  ranked.sort((a, b) => a.rank - b.rank);
  const out = new Map<string, RunChip[]>();
  for (const r of ranked) {
    const list = out.get(r.runId);
    if (list) list.push(r.chip);
    else out.set(r.runId, [r.chip]);
  }
  return out;
}
