// "Ask a follow-up" on a finished live session: another turn in the same REPL (the reference
// library's persistent mode). The host keeps a finished session's REPL for a while; when it
// cannot take a follow-up, its reason is shown instead of the form.
import { memo, useState } from 'react';
import type { ContextSource } from '../../src-shared/protocol.ts';
import { useServices, useStudio } from '../app/context.tsx';

type ContextKind = 'question' | 'text' | 'path' | 'upload';

export interface FollowUpDraft {
  query: string;
  kind: ContextKind;
  text: string;
  path: string;
  upload: { text: string; json: boolean } | null;
}

/** The turn's context as the protocol takes it; null: the question itself. An error names what is missing. */
export function followUpContext(d: FollowUpDraft): ContextSource | null | { error: string } {
  switch (d.kind) {
    case 'question':
      return null;
    case 'text':
      return d.text === '' ? { error: 'paste the context text, or choose "the question itself"' } : { kind: 'text', text: d.text };
    case 'path':
      return d.path.trim() === '' ? { error: 'give the path of the context file on the host' } : { kind: 'file', path: d.path.trim() };
    case 'upload':
      if (d.upload === null) return { error: 'choose the context file' };
      return d.upload.json ? { kind: 'json', json: d.upload.text } : { kind: 'text', text: d.upload.text };
  }
}

const EMPTY: FollowUpDraft = { query: '', kind: 'question', text: '', path: '', upload: null };

// memo: this view reads its own slices; App re-renders only when the panel, the active session or a title changes.
export const FollowUpForm = memo(function FollowUpForm({ sessionId }: { sessionId: string }) {
  const svc = useServices();
  const entry = useStudio((s) => s.sessions.get(sessionId));
  const connected = useStudio((s) => s.connection === 'open');
  const turns = useStudio((s) => s.sessions.get(sessionId)?.traj.roots.length ?? 0);
  const [draft, setDraft] = useState<FollowUpDraft>(EMPTY);
  const [sending, setSending] = useState(false);
  if (!entry) return null;
  const summary = entry.summary;
  const finished = summary === null || ['finished', 'failed', 'cancelled', 'saved'].includes(summary.status);
  if (!finished) return null;
  const state = summary?.followUp;
  if (entry.source !== 'host' || !connected || !state?.ready) {
    const reason =
      entry.source !== 'host'
        ? 'a log opened in this page keeps no REPL to continue in; fork it from an iteration instead'
        : !connected
          ? 'not connected to the host'
          : (state?.reason ?? 'the host keeps no REPL for this session');
    return (
      <div className="follow-up-off muted" data-testid="follow-up-unavailable">
        No follow-up: {reason}.
      </div>
    );
  }
  const context = followUpContext(draft);
  const problem = draft.query.trim() === '' ? 'type a question' : context !== null && 'error' in context ? context.error : null;
  const set = (patch: Partial<FollowUpDraft>): void => setDraft((d) => ({ ...d, ...patch }));
  return (
    <form
      className="follow-up"
      aria-label="Ask a follow-up"
      data-testid="follow-up"
      onSubmit={(e) => {
        e.preventDefault();
        if (problem !== null || sending || (context !== null && 'error' in context)) return;
        setSending(true);
        void svc.followUp(sessionId, draft.query.trim(), context).then((ok) => {
          setSending(false);
          if (ok) setDraft(EMPTY);
        });
      }}
    >
      <h4>Ask a follow-up</h4>
      <small className="muted">
        This follow-up (turn {turns}, counting from 0) runs in the same REPL: its context becomes <code>context_{turns}</code>,{' '}
        {turns === 1 ? (
          <>
            the first turn's messages are <code>history_0</code>.
          </>
        ) : (
          <>
            the earlier turns' messages are <code>history_0</code>…<code>history_{turns - 1}</code>.
          </>
        )}
      </small>
      <textarea
        rows={3}
        value={draft.query}
        onChange={(e) => set({ query: e.target.value })}
        placeholder="Your next question"
        aria-label="Follow-up question"
        data-testid="fu-query"
      />
      <label>
        context{' '}
        <select
          value={draft.kind}
          onChange={(e) => set({ kind: e.target.value as ContextKind })}
          aria-label="Follow-up context"
          data-testid="fu-context-kind"
        >
          <option value="question">the question itself</option>
          <option value="text">text pasted here</option>
          <option value="path">a file on the host</option>
          <option value="upload">a file from this computer</option>
        </select>
      </label>
      {draft.kind === 'text' ? (
        <textarea
          rows={4}
          value={draft.text}
          onChange={(e) => set({ text: e.target.value })}
          aria-label="Follow-up context text"
          data-testid="fu-context-text"
        />
      ) : null}
      {draft.kind === 'path' ? (
        <input
          value={draft.path}
          onChange={(e) => set({ path: e.target.value })}
          placeholder="path on the host"
          aria-label="Follow-up context file on the host"
          data-testid="fu-context-path"
          spellCheck={false}
        />
      ) : null}
      {draft.kind === 'upload' ? (
        <input
          type="file"
          aria-label="Follow-up context file from this computer"
          data-testid="fu-context-file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void f.text().then((text) => set({ upload: { text, json: /\.json$/i.test(f.name) } }));
          }}
        />
      ) : null}
      <button type="submit" className="primary" disabled={problem !== null || sending} title={problem ?? undefined} data-testid="fu-ask">
        Ask
      </button>
    </form>
  );
});
