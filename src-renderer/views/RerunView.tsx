// A re-executed log's comparison: a banner with the counts and every block whose new output
// differs from the recorded one (each a link to its iteration), and, on each block, whether
// it matched and a line diff of recorded against new when it did not.
import { memo, useMemo } from 'react';
import type { BlockRerun } from '../../src-shared/events.ts';
import type { TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { useServices } from '../app/context.tsx';
import { diffLines } from '../lib/diff.ts';
import { comparedText, rerunSummary } from '../lib/rerun.ts';
import { useTrajectoryMemo } from '../lib/use-trajectory-memo.ts';

/** Lines of a diff drawn at most; the rest is counted. */
const MAX_DIFF_LINES = 400;
/** Differing blocks listed in the banner at most. */
const MAX_LISTED = 50;

export const RerunBanner = memo(function RerunBanner({ sessionId, traj, rev }: { sessionId: string; traj: TrajectoryState; rev: number }) {
  const svc = useServices();
  const summary = useTrajectoryMemo(traj, rev, rerunSummary);
  if (!summary) return null;
  const { source, blocks, same, different } = summary;
  const from = source.logFile.split(/[\\/]/).pop();
  return (
    <section
      className={`rerun-summary${different.length > 0 ? ' has-diff' : ''}`}
      aria-label="Re-execution"
      data-testid="rerun-summary"
      data-blocks={blocks}
      data-different={different.length}
    >
      <b>Re-execution</b>
      {from ? (
        <>
          {' '}
          of <code title={source.logFile}>{from}</code> ({source.format === 'rlm-python' ? 'reference library log' : 'native log'})
        </>
      ) : null}
      : {blocks} block{blocks === 1 ? '' : 's'} run again · <span className="rerun-same">{same} same</span> ·{' '}
      <span className={different.length > 0 ? 'rerun-different' : ''}>{different.length} different</span>
      {different.length > 0 ? (
        <ul className="rerun-list">
          {different.slice(0, MAX_LISTED).map((d) => (
            <li key={`${d.runId}:${d.iteration}:${d.block}`}>
              <button
                type="button"
                className="link"
                onClick={() => svc.store.getState().select(sessionId, { runId: d.runId, iteration: d.iteration })}
                data-testid="rerun-show-diff"
              >
                {d.depth > 0 ? `depth ${d.depth} run ${d.runId} · ` : ''}iteration {d.iteration}, block {d.block + 1}
              </button>
            </li>
          ))}
          {different.length > MAX_LISTED ? <li>… {different.length - MAX_LISTED} more</li> : null}
        </ul>
      ) : null}
    </section>
  );
});

/** The mark on a block of a re-execution, and the diff when its output changed. */
export function BlockRerunView({ block, rerun }: { block: number; rerun: BlockRerun }) {
  const lines = useMemo(() => (rerun.same ? [] : diffLines(comparedText(rerun.recorded), comparedText(rerun.new))), [rerun]);
  return (
    <div className="block-rerun" data-testid={`rerun-${block}`} data-same={rerun.same ? 'true' : 'false'}>
      <span className={`badge ${rerun.same ? 'rerun-same' : 'rerun-different'}`}>
        {rerun.same ? 'same as recorded' : 'different from recorded'}
      </span>
      {rerun.terms === 'rlm-python' ? <small className="muted"> compared as the reference library records output</small> : null}
      {rerun.same ? null : (
        <div className="rerun-diff" data-testid={`rerun-diff-${block}`} aria-label={`Recorded against new output of block ${block + 1}`}>
          <div className="diff-legend">
            <span className="diff-removed">- recorded</span> <span className="diff-added">+ this run</span>
          </div>
          <pre>
            {lines.slice(0, MAX_DIFF_LINES).map((l, i) => (
              <span key={i} className={`diff-${l.op}`}>
                {l.op === 'removed' ? '- ' : l.op === 'added' ? '+ ' : '  '}
                {l.text}
                {'\n'}
              </span>
            ))}
          </pre>
          {lines.length > MAX_DIFF_LINES ? <div className="muted">… {lines.length - MAX_DIFF_LINES} more lines</div> : null}
        </div>
      )}
    </div>
  );
}
