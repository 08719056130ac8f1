// `rlm-studio label LOG [TARGET [LABEL]]`: lists, adds or removes the labels and notes of a
// log. They live in LOG.labels.jsonl (append-only); the log is never written. Labels come
// from the user's set in rlm-labels.json (the log's folder or one above, or --labels FILE).
import type { Command } from 'commander';
import { labelsList, type LabelsState } from '../../../src-shared/analysis/labels.ts';
import { labelLog, type LabelChange } from '../../analysis/label-log.ts';
import { LabelError, readLabels, sidecarPath } from '../../logs/labels-sidecar.ts';
import { UsageError } from '../errors.ts';
import { assertReadable, type Output, processOutput } from '../log-inputs.ts';

export interface LabelOptions {
  note?: string;
  remove?: boolean;
  labels?: string;
  json?: boolean;
}

function formatLabels(state: LabelsState): string {
  const list = labelsList(state);
  if (list.length === 0) return 'no labels\n';
  const lines: string[] = [];
  for (const t of list) {
    const names = t.labels.map((l) => (l.note ? `${l.label} (${l.note})` : l.label));
    lines.push(`${t.target}  ${names.join(', ') || '-'}${t.note ? `  note: ${t.note}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

function changeOf(target: string | undefined, label: string | undefined, o: LabelOptions): LabelChange | null {
  if (target === undefined) {
    if (o.remove || o.note !== undefined) throw new UsageError('name a TARGET (session, run:ID, iteration:ID#N or call:ID)');
    return null;
  }
  if (label === undefined) {
    if (o.remove) throw new UsageError('--remove needs the LABEL to remove');
    if (o.note === undefined) throw new UsageError('name a LABEL to add, or give --note TEXT for a note on the target');
    return { op: 'note', target, text: o.note };
  }
  if (o.remove) {
    if (o.note !== undefined) throw new UsageError('--remove takes no --note');
    return { op: 'remove', target, label };
  }
  return { op: 'add', target, label, ...(o.note !== undefined ? { note: o.note } : {}) };
}

export async function runLabel(
  log: string,
  target: string | undefined,
  label: string | undefined,
  o: LabelOptions,
  io: Output = processOutput,
): Promise<LabelsState> {
  await assertReadable(log);
  const change = changeOf(target, label, o);
  let state: LabelsState;
  try {
    state = change === null ? await readLabels(log) : await labelLog(log, change, o.labels !== undefined ? { labelSet: o.labels } : {});
  } catch (err) {
    if (err instanceof LabelError) throw new UsageError(err.message);
    throw err;
  }
  for (const p of state.problems) io.err(`rlm-studio: ${sidecarPath(log)}: ${p}\n`);
  if (o.json) io.out(`${JSON.stringify({ sidecar: sidecarPath(log), targets: labelsList(state) }, null, 2)}\n`);
  else io.out(formatLabels(state));
  return state;
}

export function registerLabel(program: Command): void {
  program
    .command('label')
    .description(
      'List, add or remove labels and notes on a session, run, iteration or sub-call of a log (either format); stored in LOG.labels.jsonl, the log is never written.',
    )
    .argument('<log>', 'a log file')
    .argument('[target]', 'session, run:RUN_ID, iteration:RUN_ID#N or call:CALL_ID (omit to list the labels)')
    .argument('[label]', "a label from the set in rlm-labels.json (the log's folder or one above)")
    .option('--note <text>', 'a note with the label, or, without a LABEL, a note on the target ("" clears it)')
    .option('--remove', 'remove LABEL from TARGET')
    .option('--labels <file>', 'the label set file to use instead of the nearest rlm-labels.json')
    .option('--json', 'print the labels as JSON')
    .action(async (log: string, target: string | undefined, label: string | undefined, options: LabelOptions) => {
      await runLabel(log, target, label, options);
    });
}
