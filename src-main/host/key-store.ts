// Where `profiles.setKey` puts a key. Web mode has none: keys come from the environment
// there. The desktop host asks the Electron main process, the only one that may use the OS
// keychain (safeStorage), over its parentPort (see broker-protocol.ts).
import { BrokerToHost, type HostToBroker } from './broker-protocol.ts';

export interface KeyStore {
  /** Stores (or with null removes) the key of a keychain reference; rejects with a reason. */
  set(ref: string, key: string | null): Promise<void>;
}

export function brokeredKeyStore(post: (m: HostToBroker) => void): KeyStore & { handle(data: unknown): boolean } {
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
      const m = BrokerToHost.safeParse(data);
      if (!m.success || m.data.t !== 'keys.result') return false;
      const p = pending.get(m.data.req);
      pending.delete(m.data.req);
      if (m.data.ok) p?.resolve();
      else p?.reject(new Error(m.data.error ?? 'the key could not be stored'));
      return true;
    },
  };
}
