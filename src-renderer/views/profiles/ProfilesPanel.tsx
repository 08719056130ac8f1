// Endpoint profiles: list, add, edit (saved with `profiles.save`), delete (after a second
// click, `profiles.delete`) and store a profile's API key (`profiles.setKey`). The built-in `demo` profile is listed read-only. The key is read
// from an uncontrolled password field at the moment it is sent and the field is cleared at
// once, so it never sits in React state or the store; only the host's reply (which never
// carries it) is kept.
import { useEffect, useId, useRef, useState, type SyntheticEvent } from 'react';
import { createPortal } from 'react-dom';
import { DEMO_PROFILE_NAME } from '../../../src-shared/protocol.ts';
import { useServices, useStudio } from '../../app/context.tsx';
import { deleteProfile } from '../../app/profile-services.ts';
import { REPL_CHOICE_LABEL } from '../../lib/repl-language.ts';
import { ProfileEditor } from './ProfileEditor.tsx';
import { EMPTY_DRAFT, profileDraftOf, samplingText, type ProfileDraft } from './profile-draft.ts';

// The panel is portalled to <body>; React still bubbles its events through the new-run
// form, whose onSubmit would start a run. Stop them at the panel's root.
const stop = (e: SyntheticEvent): void => e.stopPropagation();

export function ProfilesPanel({ onClose, onSaved }: { onClose: () => void; onSaved?: (name: string) => void }) {
  const profiles = useStudio((s) => s.profiles);
  // `seq` remounts the editor for each Add / Edit click (fresh fields and messages).
  const [editor, setEditor] = useState<{ seq: number; draft: ProfileDraft } | null>(null);
  /** The profile whose Delete was clicked once (a second click deletes), and the last outcome. */
  const [confirming, setConfirming] = useState<string | null>(null);
  const [deleted, setDeleted] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const svc = useServices();
  const titleId = useId();
  const first = useRef<HTMLButtonElement>(null);
  const open = (draft: ProfileDraft): void => setEditor((e) => ({ seq: (e?.seq ?? 0) + 1, draft }));

  useEffect(() => {
    // Focus moves into the dialog and back to whatever opened it.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    first.current?.focus();
    // Escape with the focus outside the dialog (inside, the root's onKeyDown handles it).
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      opener?.focus();
    };
  }, [onClose]);

  const remove = async (name: string): Promise<void> => {
    setConfirming(null);
    const r = await deleteProfile(svc, name);
    if (r.ok) {
      setDeleted({ kind: 'ok', text: `Deleted "${name}".` });
      // An editor open on the deleted profile would save it back.
      setEditor((e) => (e && e.draft.original === name ? null : e));
    } else setDeleted({ kind: 'error', text: `"${name}" was not deleted: ${r.error}` });
  };

  const demo = profiles.find((p) => p.name === DEMO_PROFILE_NAME);
  const saved = profiles.filter((p) => p.name !== DEMO_PROFILE_NAME);

  return createPortal(
    <div
      className="profiles-backdrop"
      onSubmit={stop}
      onKeyDown={(e) => {
        // Stopped here so the app's global shortcuts stay quiet while the dialog is open.
        e.stopPropagation();
        if (e.key === 'Escape') {
          e.preventDefault();
          onClose();
        }
      }}
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div className="profiles-panel" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="profiles-panel">
        <div className="profiles-head">
          <h2 id={titleId}>Endpoint profiles</h2>
          <button type="button" onClick={() => open({ ...EMPTY_DRAFT, prices: [] })} data-testid="pp-add" ref={first}>
            Add profile
          </button>
          <button type="button" onClick={onClose} aria-label="Close endpoint profiles" data-testid="pp-close">
            ×
          </button>
        </div>
        <table className="profiles-table" data-testid="pp-list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Base URL</th>
              <th scope="col">Model</th>
              <th scope="col">Sub-model</th>
              <th scope="col">API key reference</th>
              <th scope="col">Prices</th>
              <th scope="col">REPL</th>
              <th scope="col">System prompt</th>
              <th scope="col">Paper-era FINAL</th>
              <th scope="col">Sampling</th>
              <th scope="col">Prompt pack</th>
              <th scope="col">Context window</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <tr data-testid={`pp-row-${DEMO_PROFILE_NAME}`} className="pp-builtin">
              <td>{DEMO_PROFILE_NAME}</td>
              <td>{demo ? demo.baseUrl : '(bundled)'}</td>
              <td>{demo ? demo.model : 'mock-root'}</td>
              <td>—</td>
              <td>none needed</td>
              <td>—</td>
              <td>chosen per run</td>
              <td>built-in</td>
              <td>chosen per run</td>
              <td>—</td>
              <td>ours</td>
              <td>model table</td>
              <td className="muted">built-in, read-only</td>
            </tr>
            {saved.map((p) => (
              <tr key={p.name} data-testid={`pp-row-${p.name}`}>
                <td>{p.name}</td>
                <td>{p.baseUrl}</td>
                <td>{p.model}</td>
                <td>{p.subModel ?? '—'}</td>
                <td>{p.apiKeyRef ?? '—'}</td>
                <td>
                  {Object.keys(p.prices).length > 0
                    ? Object.entries(p.prices)
                        .map(([m, v]) => `${m}: $${v.inputPerMTok} / $${v.outputPerMTok}`)
                        .join('; ')
                    : '—'}
                </td>
                <td>{REPL_CHOICE_LABEL[p.repl ?? 'javascript']}</td>
                <td>{p.systemPrompt ? `own (${p.systemPrompt.length.toLocaleString('en-US')} characters)` : 'built-in'}</td>
                <td>{p.finalPatterns ? 'accepted' : '—'}</td>
                <td data-testid={`pp-sampling-${p.name}`}>{samplingText(p.sampling)}</td>
                <td data-testid={`pp-prompts-${p.name}`}>{p.prompts ?? 'ours'}</td>
                <td data-testid={`pp-context-window-${p.name}`}>
                  {p.contextWindow !== undefined ? `${p.contextWindow.toLocaleString('en-US')} tokens` : 'model table'}
                </td>
                <td>
                  <button
                    type="button"
                    onClick={() => open(profileDraftOf(p))}
                    aria-label={`Edit ${p.name}`}
                    data-testid={`pp-edit-${p.name}`}
                  >
                    Edit
                  </button>
                  {confirming === p.name ? (
                    <>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => void remove(p.name)}
                        aria-label={`Really delete ${p.name}`}
                        data-testid={`pp-delete-confirm-${p.name}`}
                      >
                        Really delete
                      </button>
                      <button type="button" onClick={() => setConfirming(null)} aria-label={`Keep ${p.name}`}>
                        Keep
                      </button>
                    </>
                  ) : (
                    <button
                      type="button"
                      onClick={() => setConfirming(p.name)}
                      aria-label={`Delete ${p.name}`}
                      data-testid={`pp-delete-${p.name}`}
                    >
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {deleted ? (
          <p
            role={deleted.kind === 'error' ? 'alert' : 'status'}
            className={deleted.kind === 'error' ? 'pp-error' : 'pp-ok'}
            data-testid="pp-delete-status"
          >
            {deleted.text}
          </p>
        ) : null}
        {editor ? (
          <ProfileEditor key={editor.seq} initial={editor.draft} profiles={saved} onSaved={onSaved} onCancel={() => setEditor(null)} />
        ) : null}
      </div>
    </div>,
    document.body,
  );
}
