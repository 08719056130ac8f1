// One code block: its code, its output as the model saw it, its sub-calls and re-execution.
import { type BlockNode, type TrajectoryState } from '../../../src-shared/trajectory/index.ts';
import { blockOutputText, truncationOf } from '../../lib/block-output.ts';
import { fmtMs } from '../../lib/format.ts';
import { type ReplLanguage } from '../../lib/repl-language.ts';
import { CodeView } from '../../monaco/CodeView.tsx';
import { BlockRerunView } from '../RerunView.tsx';
import { SubcallList } from './SubcallList.tsx';

export function BlockView({
  sessionId,
  traj,
  b,
  language,
}: {
  sessionId: string;
  traj: TrajectoryState;
  b: BlockNode;
  language: ReplLanguage;
}) {
  const out = b.end ? blockOutputText(b.end) : '';
  const cut = truncationOf(out);
  return (
    <div className="block" data-testid={`block-${b.block}`}>
      <h4>
        Code block {b.block + 1}
        {b.start?.edited ? <span className="badge">edited by hand</span> : null}
        {b.end ? (
          <small>
            {' '}
            · {fmtMs(b.end.durationMs)} (cpu {fmtMs(b.end.cpuMs)})
          </small>
        ) : (
          <small> · running…</small>
        )}
      </h4>
      {b.start ? (
        <CodeView value={b.start.code} language={language} readOnly testId={`code-${b.block}`} ariaLabel={`Code block ${b.block + 1}`} />
      ) : null}
      {b.end ? (
        <>
          <div className="out-head">
            Output{b.end.error ? <span className="error-name"> · {b.end.error.name}</span> : null}
            {cut ? (
              <span className="cut-note" data-testid="cut-note">
                {' '}
                · the model saw the first {cut.cutAt.toLocaleString('en-US')} of {cut.total.toLocaleString('en-US')} characters (the rest is
                shaded)
              </span>
            ) : null}
          </div>
          <CodeView
            value={out || '(no output)'}
            language="plaintext"
            readOnly
            cutAt={cut?.cutAt ?? null}
            testId={`output-${b.block}`}
            ariaLabel={`Output of block ${b.block + 1}`}
            maxLines={20}
          />
          {b.end.variables.length > 0 ? <div className="vars-line">variables: {b.end.variables.join(', ')}</div> : null}
          {b.end.submitted !== null ? <div className="vars-line">submitted the answer</div> : null}
          {b.end.rerun ? <BlockRerunView block={b.block} rerun={b.end.rerun} /> : null}
          {b.replReset ? <div className="warn">REPL replaced ({b.replReset.reason}); its state was lost</div> : null}
        </>
      ) : null}
      {b.calls.length > 0 ? <SubcallList sessionId={sessionId} traj={traj} b={b} /> : null}
    </div>
  );
}
