// The findings view's calls to the host: the findings of scanned folders (`findings.list`) and
// a person's verdict on one (`findings.verdict`, a label in the log's sidecar). After a verdict
// the labels of that log, if it is open, are read again so its Labels box shows the change.
import type { FindingsListing, Verdict } from '../../../src-shared/analysis/scan-findings.ts';
import { loadLabels } from '../../app/label-services.ts';
import type { Services } from '../../app/services.ts';

const NO_HOST = 'findings are read on the host: open the app through `rlm-studio serve` or `rlm-studio view`';

export async function listFindings(svc: Services, paths: string[]): Promise<FindingsListing> {
  if (!svc.host) throw new Error(NO_HOST);
  return (await svc.host.call('findings.list', { paths })).findings;
}

export interface VerdictTarget {
  dir: string;
  log: string;
  file: string;
  scanner: string;
  target: string;
}

export async function giveVerdict(svc: Services, paths: string[], t: VerdictTarget, verdict: Verdict | null): Promise<FindingsListing> {
  if (!svc.host) throw new Error(NO_HOST);
  const { findings } = await svc.host.call('findings.verdict', {
    paths,
    dir: t.dir,
    log: t.log,
    scanner: t.scanner,
    target: t.target,
    verdict,
  });
  const open = [...svc.store.getState().sessions.values()].find((s) => s.summary?.logFile === t.file);
  if (open) await loadLabels(svc, open.id, true);
  return findings;
}
