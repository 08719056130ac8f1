// Each scanner's agreement with the people's verdicts (scan-findings.ts): findings confirmed
// and rejected, precision, the logs judged as a confusion table, recall and Cohen's kappa.
import type { ScannerAgreement } from '../../../src-shared/analysis/scan-findings.ts';

const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(0)}%`);

export function AgreementTable({ rows }: { rows: readonly ScannerAgreement[] }) {
  if (rows.length === 0) return null;
  return (
    <table className="findings-agreement" data-testid="findings-agreement">
      <thead>
        <tr>
          <th>scanner</th>
          <th>kind</th>
          <th title="logs scanned with a verdict">logs</th>
          <th>flagged</th>
          <th>findings</th>
          <th>confirmed</th>
          <th>rejected</th>
          <th>unreviewed</th>
          <th title="confirmed / (confirmed + rejected)">precision</th>
          <th title="logs people judged: true and false positives, false and true negatives">judged (TP FP FN TN)</th>
          <th title="TP / (TP + FN); needs judged unflagged logs">recall</th>
          <th title="Cohen's kappa over the judged logs; needs both verdicts">kappa</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((a) => (
          <tr key={a.scanner} data-scanner={a.scanner}>
            <td>{a.scanner}</td>
            <td>{a.scannerKind ?? '?'}</td>
            <td>{a.trajectories}</td>
            <td>{a.flagged}</td>
            <td>{a.findings.total}</td>
            <td data-testid="agreement-confirmed">{a.findings.confirmed}</td>
            <td data-testid="agreement-rejected">{a.findings.rejected}</td>
            <td>{a.findings.unreviewed}</td>
            <td data-testid="agreement-precision">{pct(a.precision)}</td>
            <td>
              {a.judged} ({a.confusion.truePositive} {a.confusion.falsePositive} {a.confusion.falseNegative} {a.confusion.trueNegative})
            </td>
            <td data-testid="agreement-recall">{pct(a.recall)}</td>
            <td data-testid="agreement-kappa">{a.kappa === null ? '—' : a.kappa.toFixed(2)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
