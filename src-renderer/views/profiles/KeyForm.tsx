import { useRef, useState } from 'react';
import { useServices } from '../../app/context.tsx';
import { setProfileKey } from '../../app/profile-services.ts';

/** Stores or removes the profile's key. Its own form, so Enter in the key field does not save the profile. */
export function KeyForm({ profile, apiKeyRef }: { profile: string; apiKeyRef: string | null }) {
  const svc = useServices();
  const field = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);

  const send = async (remove: boolean): Promise<void> => {
    const input = field.current;
    if (!input) return;
    const key = remove ? null : input.value;
    // Cleared before the request: the key is only in this call from here on.
    input.value = '';
    if (key === '') {
      setStatus({ kind: 'error', text: 'Type or paste the key first.' });
      return;
    }
    setBusy(true);
    const r = await setProfileKey(svc, profile, key);
    setBusy(false);
    if (!r.ok) setStatus({ kind: 'error', text: `Key not stored: ${r.error}` });
    else setStatus({ kind: 'ok', text: r.value.stored ? 'Key stored in the OS keychain.' : 'Stored key removed.' });
  };

  return (
    <form
      className="pp-key"
      aria-label={`API key of ${profile}`}
      onSubmit={(e) => {
        e.preventDefault();
        void send(false);
      }}
    >
      <label>
        API key (desktop: kept in the OS keychain{apiKeyRef ? ` as ${apiKeyRef}` : ''})
        <input ref={field} type="password" autoComplete="off" spellCheck={false} defaultValue="" data-testid="pp-key" />
      </label>
      <div className="pp-actions">
        <button type="submit" disabled={busy} data-testid="pp-store-key">
          Store key
        </button>
        <button type="button" disabled={busy} onClick={() => void send(true)} data-testid="pp-remove-key">
          Remove stored key
        </button>
        {status ? (
          <span
            role={status.kind === 'error' ? 'alert' : 'status'}
            className={status.kind === 'error' ? 'pp-error' : 'pp-ok'}
            data-testid="pp-key-status"
          >
            {status.text}
          </span>
        ) : null}
      </div>
    </form>
  );
}
