// Labels and tree queries for the app: a session's labels are read from and appended to the
// sidecar beside its log file (the log is never written), and queries run over logs and
// folders on the host. Sessions without a file (a log sent as text) cannot be labelled.
import { labelsList } from '../../src-shared/analysis/labels.ts';
import { compileQuery, QueryError } from '../../src-shared/analysis/query.ts';
import type { LabelChangeInput, QueryResult, SessionLabels } from '../../src-shared/protocol.ts';
import { labelLog } from '../analysis/label-log.ts';
import { queryPaths } from '../analysis/query-logs.ts';
import { listFindings, setVerdict, type VerdictChange } from '../analysis/scan/findings-dir.ts';
import type { FindingsListing } from '../../src-shared/analysis/scan-findings.ts';
import { findLabelSet, LabelError, readLabels, sidecarPath } from '../logs/labels-sidecar.ts';
import { CommandError } from './command-error.ts';

export async function sessionLabels(sessionId: string, logFile: string | null): Promise<SessionLabels> {
  if (logFile === null) {
    return {
      sessionId,
      sidecar: null,
      writable: false,
      reason: 'this log was sent to the host as text, not opened from a file, so there is nowhere to keep labels beside it',
      set: null,
      setProblem: null,
      targets: [],
      problems: [],
    };
  }
  let set: SessionLabels['set'] = null;
  let setProblem: string | null = null;
  try {
    const found = await findLabelSet(logFile);
    if (found) set = { path: found.path, labels: found.set.labels };
    else
      setProblem =
        'no label set: write rlm-labels.json in the log\'s folder (or one above), e.g. {"labels": [{"name": "good-decomposition"}]}';
  } catch (err) {
    setProblem = err instanceof Error ? err.message : String(err);
  }
  const state = await readLabels(logFile);
  return {
    sessionId,
    sidecar: sidecarPath(logFile),
    writable: true,
    reason: null,
    set,
    setProblem,
    targets: labelsList(state),
    problems: state.problems,
  };
}

export async function changeSessionLabels(sessionId: string, logFile: string | null, change: LabelChangeInput): Promise<SessionLabels> {
  const current = await sessionLabels(sessionId, logFile);
  if (logFile === null) throw new CommandError('bad_request', `cannot label: ${current.reason ?? 'no log file'}`);
  try {
    await labelLog(logFile, change);
  } catch (err) {
    if (err instanceof LabelError) throw new CommandError('bad_request', err.message);
    throw err;
  }
  return sessionLabels(sessionId, logFile);
}

export async function runQuery(expression: string, paths: readonly string[]): Promise<QueryResult> {
  try {
    return await queryPaths(compileQuery(expression), paths);
  } catch (err) {
    if (err instanceof QueryError) throw new CommandError('bad_request', err.message);
    throw err;
  }
}

/** A person's verdict on a scanner's finding (a label in the log's sidecar), and the findings after it. */
export async function changeVerdict(c: VerdictChange & { paths: string[] }): Promise<FindingsListing> {
  try {
    await setVerdict(c);
  } catch (err) {
    if (err instanceof LabelError) throw new CommandError('bad_request', err.message);
    throw err;
  }
  return listFindings(c.paths);
}
