// Adding and removing labels and notes on a log: the target is checked against the log's run
// tree and the label against the label set that applies, then one record is appended to the
// sidecar. The log is read, never written.
import { checkTarget, LabelName, parseTarget, targetId, type LabelRecord, type LabelsState } from '../../src-shared/analysis/labels.ts';
import type { TrajectoryState } from '../../src-shared/trajectory/types.ts';
import { reduceEvents } from '../../src-shared/trajectory/reducer.ts';
import { appendLabelRecord, checkLabel, LabelError, readLabels } from '../logs/labels-sidecar.ts';
import { readLogFile } from '../logs/read-log.ts';

export type LabelChange =
  | { op: 'add'; target: string; label: string; note?: string | undefined }
  | { op: 'remove'; target: string; label: string }
  | { op: 'note'; target: string; text: string };

export interface LabelLogOptions {
  /** The log's run tree when the caller has it (the host does); else the log is read. */
  traj?: TrajectoryState;
  /** A label set file to use instead of the nearest `rlm-labels.json`. */
  labelSet?: string;
  /** The record's time (default now). */
  now?: () => Date;
}

async function trajectoryOf(logPath: string): Promise<TrajectoryState> {
  const contents = await readLogFile(logPath);
  if (contents.format === null) throw new LabelError(`${logPath}: not a log in a known format`);
  return reduceEvents(contents.events, contents.header);
}

/** Applies one change and returns the log's labels after it. */
export async function labelLog(logPath: string, change: LabelChange, o: LabelLogOptions = {}): Promise<LabelsState> {
  const target = parseTarget(change.target);
  if ('error' in target) throw new LabelError(target.error);
  if (change.op !== 'note') {
    const name = LabelName.safeParse(change.label);
    if (!name.success) throw new LabelError(`bad label ${JSON.stringify(change.label)}: ${name.error.issues[0]?.message ?? 'invalid'}`);
  }
  const traj = o.traj ?? (await trajectoryOf(logPath));
  const missing = checkTarget(traj, target);
  if (missing !== null) throw new LabelError(`${logPath}: ${missing}`);
  const at = (o.now?.() ?? new Date()).toISOString();
  const id = targetId(target);
  let record: LabelRecord;
  if (change.op === 'add') {
    await checkLabel(logPath, change.label, o.labelSet);
    record = { v: 1, op: 'add', target: id, label: change.label, ...(change.note !== undefined ? { note: change.note } : {}), at };
  } else if (change.op === 'remove') {
    const current = await readLabels(logPath);
    if (!current.targets.get(id)?.labels.some((l) => l.label === change.label)) {
      throw new LabelError(`${id} has no label "${change.label}" to remove`);
    }
    record = { v: 1, op: 'remove', target: id, label: change.label, at };
  } else {
    record = { v: 1, op: 'note', target: id, text: change.text, at };
  }
  await appendLabelRecord(logPath, record);
  return readLabels(logPath);
}
