// The paused reply's code, editable until it runs; the edits are kept per pause in the app's
// drafts store, so looking elsewhere while the session waits loses nothing.
import { usePausedDrafts, useServices } from '../../app/context.tsx';
import { type ReplLanguage } from '../../lib/repl-language.ts';
import { CodeView } from '../../monaco/CodeView.tsx';
import { draftOf, pendingEdits } from '../../store/paused-drafts.ts';

export function PausedEditor({
  sessionId,
  runId,
  iteration,
  blocks,
  language,
}: {
  sessionId: string;
  runId: string;
  iteration: number;
  blocks: string[];
  language: ReplLanguage;
}) {
  const svc = useServices();
  const at = { runId, iteration, blocks };
  const edits = usePausedDrafts((s) => draftOf(s, sessionId, at)) ?? blocks;
  const changed = edits.some((e, i) => e !== blocks[i]);
  return (
    <div className="paused-edit" data-testid="paused-editor">
      <h4>Paused after the reply: edit the code, then run it</h4>
      {edits.map((code, i) => (
        <CodeView
          key={i}
          value={code}
          language={language}
          readOnly={false}
          onChange={(v) => svc.store.drafts.getState().edit(sessionId, at, i, v)}
          testId={`edit-block-${i}`}
          ariaLabel={`Editable code block ${i + 1}`}
        />
      ))}
      <button
        type="button"
        className="primary"
        data-testid="run-edited"
        onClick={() => void svc.editAndContinue(sessionId, pendingEdits(svc.store.drafts.getState(), sessionId, at) ?? {})}
      >
        {changed ? 'Run edited code' : 'Run as is'}
      </button>
    </div>
  );
}
