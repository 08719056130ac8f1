// Where `profiles.setKey` puts a key. Web mode has none: keys come from the environment
// there. The desktop host asks the Electron main process, the only one that may use the OS
// keychain (safeStorage), over its IPC channel (see keychain-protocol.ts).
import { KeychainReply, KeychainRequest } from './keychain-protocol.ts';

export interface KeyStore {
  /** Stores (or with null removes) the key of a keychain reference; rejects with a reason. */
  set(ref: string, key: string | null): Promise<void>;
}

/** A key store that asks the desktop shell; `handle` takes every message from it (false: not a keychain reply). */
export function shellKeyStore(post: (m: KeychainRequest) => void): KeyStore & { handle(data: unknown): boolean } {
  let nextReq = 1;
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  return {
    set: (ref, key) =>
      new Promise<void>((resolve, reject) => {
        const req = nextReq++;
        pending.set(req, { resolve, reject });
        post({ t: 'keys.set', req, ref, key });
      }),
    handle(data) {
      const m = KeychainReply.safeParse(data);
      if (!m.success) return false;
      const p = pending.get(m.data.req);
      pending.delete(m.data.req);
      if (m.data.ok) p?.resolve();
      else p?.reject(new Error(m.data.error ?? 'the key could not be stored'));
      return true;
    },
  };
}

/**
 * The shell's side: the reply to a host's keychain request, after storing with `setKey`
 * (which throws with a reason); null when `raw` is no keychain request.
 */
export function answerKeychainRequest(raw: unknown, setKey: (ref: string, key: string | null) => void): KeychainReply | null {
  const m = KeychainRequest.safeParse(raw);
  if (!m.success) return null;
  try {
    setKey(m.data.ref, m.data.key);
    return { t: 'keys.result', req: m.data.req, ok: true };
  } catch (err) {
    return { t: 'keys.result', req: m.data.req, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
