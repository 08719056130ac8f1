// Findings of scanners (`rlm-studio scan`, docs/scanners.md) across scanned folders: the open
// evaluations' and any folder typed in. Each finding links to its place in the trajectory (its
// session opened at the run and iteration) and to each place it cites; a person confirms or
// rejects it, stored as a label scan.SCANNER.confirmed|rejected in the log's sidecar, and logs a
// scanner passed over can be judged too, which is what recall needs. Each scanner's agreement
// with those verdicts heads the view.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { FindingsListing, FindingView, UnflaggedView, Verdict } from '../../../src-shared/analysis/scan-findings.ts';
import { useServices, useStudio } from '../../app/context.tsx';
import { openMatch } from '../../app/label-services.ts';
import { HostPathForm } from '../HostPathForm.tsx';
import { AgreementTable } from './AgreementTable.tsx';
import { giveVerdict, listFindings, type VerdictTarget } from './findings-host.ts';
import { useFindingsFolders } from './findings-folders.ts';

/** Rows drawn at once; filters narrow the rest. */
const MAX_ROWS = 500;

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/** The run and iteration a run or iteration target points at, for opening it (a call's comes with the finding). */
function placeOfTarget(target: string): { runId: string; iteration: number | null } | null {
  if (target.startsWith('run:')) return { runId: target.slice(4), iteration: null };
  const m = /^iteration:(.+)#(\d+)$/.exec(target);
  return m ? { runId: m[1]!, iteration: Number(m[2]) } : null;
}

function VerdictButtons(props: {
  verdict: Verdict | null;
  busy: boolean;
  onVerdict: (v: Verdict | null) => void;
  yes: string;
  no: string;
}) {
  const { verdict, busy, onVerdict } = props;
  return (
    <span className="finding-verdict">
      <button
        type="button"
        aria-pressed={verdict === 'confirmed'}
        disabled={busy}
        data-testid="finding-confirm"
        onClick={() => onVerdict(verdict === 'confirmed' ? null : 'confirmed')}
      >
        {props.yes}
      </button>
      <button
        type="button"
        aria-pressed={verdict === 'rejected'}
        disabled={busy}
        data-testid="finding-reject"
        onClick={() => onVerdict(verdict === 'rejected' ? null : 'rejected')}
      >
        {props.no}
      </button>
    </span>
  );
}

export function FindingsView() {
  const svc = useServices();
  const evals = useStudio((s) => s.evals);
  const extra = useFindingsFolders((f) => f.folders);
  const paths = useMemo(() => [...new Set([...[...evals.values()].map((e) => e.dir), ...extra])], [evals, extra]);
  const [listing, setListing] = useState<FindingsListing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [scanner, setScanner] = useState('');
  const [show, setShow] = useState<'all' | 'unreviewed' | Verdict>('all');

  const load = useCallback(async () => {
    if (paths.length === 0) return;
    setBusy(true);
    try {
      setListing(await listFindings(svc, paths));
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }, [svc, paths]);
  useEffect(() => {
    void load();
  }, [load]);

  const verdictOn = async (t: VerdictTarget, v: Verdict | null): Promise<void> => {
    setBusy(true);
    try {
      setListing(await giveVerdict(svc, paths, t, v));
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const scanners = listing ? [...new Set([...listing.findings, ...listing.unflagged].map((f) => f.scanner))].sort() : [];
  const keep = (f: FindingView | UnflaggedView): boolean =>
    (scanner === '' || f.scanner === scanner) && (show === 'all' || (show === 'unreviewed' ? f.verdict === null : f.verdict === show));
  const findings = listing?.findings.filter(keep) ?? [];
  const unflagged = listing?.unflagged.filter(keep) ?? [];
  const open = (f: FindingView, target: string): void => {
    const call = f.callPlaces?.find((p) => p.target === target);
    const at =
      target === f.target && f.runId !== null
        ? { runId: f.runId, iteration: f.iteration }
        : call
          ? { runId: call.runId, iteration: call.iteration }
          : placeOfTarget(target);
    void openMatch(svc, f.file, at);
  };

  return (
    <div className="findings-view" data-testid="findings-view">
      <h2>Findings</h2>
      <p className="muted">
        What scanners found (<code>rlm-studio scan DIR --scanner FILE</code>, docs/scanners.md) in the open evaluations and the folders
        added here. Confirm or reject each finding: the verdict is a label <code>scan.ID.confirmed</code> or <code>scan.ID.rejected</code>{' '}
        beside the log, and each scanner&apos;s agreement with the verdicts is below.
      </p>
      <HostPathForm
        placeholder="/path/to/scanned-folder"
        label="Scanned folder"
        submitText="Add folder"
        inputTestId="findings-folder"
        submitTestId="findings-add"
        onOpen={(p) => useFindingsFolders.getState().add(p)}
      />
      {extra.length > 0 ? (
        <p className="muted findings-folders">
          folders:{' '}
          {extra.map((f) => (
            <span key={f} className="label-chip">
              {f}{' '}
              <button
                type="button"
                className="link"
                aria-label={`Stop reading ${f}`}
                onClick={() => useFindingsFolders.getState().remove(f)}
              >
                ×
              </button>
            </span>
          ))}
        </p>
      ) : null}
      {paths.length === 0 ? <p className="muted">Open an evaluation, or add a folder that was scanned.</p> : null}
      {error !== null ? (
        <p role="alert" className="query-error" data-testid="findings-error">
          {error}
        </p>
      ) : null}
      {listing?.problems.map((p) => (
        <p key={p} className="muted" data-testid="findings-problem">
          {p}
        </p>
      ))}
      {listing ? <AgreementTable rows={listing.agreement} /> : null}
      {listing ? (
        <div className="findings-filters">
          <select aria-label="Scanner" value={scanner} onChange={(e) => setScanner(e.target.value)}>
            <option value="">every scanner</option>
            {scanners.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <select aria-label="Verdict" value={show} onChange={(e) => setShow(e.target.value as typeof show)}>
            <option value="all">any verdict</option>
            <option value="unreviewed">unreviewed</option>
            <option value="confirmed">confirmed</option>
            <option value="rejected">rejected</option>
          </select>
          <span className="muted" data-testid="findings-count">
            {findings.length} finding(s), {unflagged.length} log(s) not flagged{busy ? ' · working…' : ''}
          </span>
        </div>
      ) : null}
      <ol className="findings-list">
        {findings.slice(0, MAX_ROWS).map((f) => (
          <li key={`${f.dir}\u0000${f.id}`} className={`finding ${f.verdict ?? 'unreviewed'}`} data-testid="finding" data-target={f.target}>
            <div className="finding-head">
              <span className="finding-scanner">{f.scanner}</span>
              <button type="button" className="link" data-testid="finding-open" onClick={() => open(f, f.target)}>
                {baseName(f.file)} · {f.target}
              </button>
              <VerdictButtons
                verdict={f.verdict}
                busy={busy}
                yes="Confirm"
                no="Reject"
                onVerdict={(v) => void verdictOn({ dir: f.dir, log: f.log, file: f.file, scanner: f.scanner, target: f.target }, v)}
              />
            </div>
            <div className="finding-explanation">{f.explanation}</div>
            <div className="finding-evidence muted">
              evidence: {f.evidence.length === 0 ? 'none cited' : null}
              {f.evidence.map((e) => (
                <button key={e} type="button" className="link" data-testid="finding-evidence" onClick={() => open(f, e)}>
                  {e}
                </button>
              ))}
              {f.invalidEvidence.length > 0 ? (
                <span className="finding-invalid" data-testid="finding-invalid" title="cited by the scanner but not in this log">
                  {' '}
                  not in the log: {f.invalidEvidence.join(', ')}
                </span>
              ) : null}
              {f.model ? (
                <span>
                  {' '}
                  · {f.model.model}, {f.model.costUsd === null ? 'cost unknown' : `$${f.model.costUsd.toFixed(6)}`}
                </span>
              ) : null}
            </div>
          </li>
        ))}
      </ol>
      {findings.length > MAX_ROWS ? <p className="muted">{findings.length - MAX_ROWS} more: narrow by scanner or verdict.</p> : null}
      {unflagged.length > 0 ? (
        <>
          <h3>Scanned, not flagged</h3>
          <p className="muted">Judge some of these too: a behaviour the scanner missed is what recall counts.</p>
          <ol className="findings-list">
            {unflagged.slice(0, MAX_ROWS).map((u) => (
              <li
                key={`${u.dir}\u0000${u.scanner}\u0000${u.log}`}
                className={`finding ${u.verdict ?? 'unreviewed'}`}
                data-testid="unflagged"
              >
                <div className="finding-head">
                  <span className="finding-scanner">{u.scanner}</span>
                  <button type="button" className="link" onClick={() => void openMatch(svc, u.file, null)}>
                    {baseName(u.file)}
                  </button>
                  <VerdictButtons
                    verdict={u.verdict}
                    busy={busy}
                    yes="Present"
                    no="Absent"
                    onVerdict={(v) => void verdictOn({ dir: u.dir, log: u.log, file: u.file, scanner: u.scanner, target: 'session' }, v)}
                  />
                </div>
                {u.explanation ? <div className="finding-explanation">{u.explanation}</div> : null}
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </div>
  );
}
