// API keys: stored by `profiles.setKey` on the desktop (through the main process's
// keychain relay, safeStorage stood in for by AES-GCM), refused in web mode, and never
// written anywhere or sent back: after a real run over HTTP that used the key, neither the
// runs dir, nor the settings dir, nor any message a client received contains it.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeychainFile, type SafeStorageLike } from '../../../src-main/electron/keychain.ts';
import { answerKeychainRequest, shellKeyStore } from '../../../src-main/host/key-store.ts';
import { Host } from '../../../src-main/host/host.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { connectInProcess, mockProfile, tempDirs } from './helpers.ts';

const SECRET = `sk-test-${randomBytes(18).toString('hex')}`;

/** safeStorage's contract (encrypt to opaque bytes, decrypt back), with a per-test key. */
function fakeSafeStorage(): SafeStorageLike {
  const k = randomBytes(32);
  return {
    isEncryptionAvailable: () => true,
    encryptString: (plain) => {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', k, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    decryptString: (buf) => {
      const d = createDecipheriv('aes-256-gcm', k, buf.subarray(0, 12));
      d.setAuthTag(buf.subarray(12, 28));
      return Buffer.concat([d.update(buf.subarray(28)), d.final()]).toString('utf8');
    },
  };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

let mock: MockLlmServer;
let proxy: Server;
let proxyUrl: string;
const authSeen: string[] = [];

beforeAll(async () => {
  mock = await startMockLlm({ port: 0 });
  const target = new URL(mock.url);
  // Records the Authorization header, so the test knows the key really was used.
  proxy = createServer((req, res) => {
    authSeen.push(String(req.headers.authorization ?? ''));
    const up = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await mock.close();
});

describe('profiles.setKey', () => {
  it('web mode refuses, saying where keys come from', async () => {
    const host = new Host({ ...tempDirs(), prewarm: false });
    const c = connectInProcess(host);
    await c.call('profiles.save', {
      profile: mockProfile('p', proxyUrl, { apiKeyRef: 'MY_KEY' }),
    });
    await expect(c.call('profiles.setKey', { profile: 'p', key: SECRET })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/environment variable/),
    });
    await host.close();
  });

  it('desktop: stores the key encrypted, runs with it, and it appears in no file, event, export or reply', async () => {
    const dirs = tempDirs();
    const keychain = new KeychainFile(dirs.settingsDir, fakeSafeStorage());
    // The shell's side of the keychain messages, wired in-process to the host's key store.
    const keys: ReturnType<typeof shellKeyStore> = shellKeyStore(
      (m) =>
        void queueMicrotask(() => {
          const reply = answerKeychainRequest(m, (ref, key) => keychain.set(ref, key));
          if (reply) keys.handle(reply);
        }),
    );
    const host = new Host({ ...dirs, keyStore: keys, env: {}, prewarm: false });
    const c = connectInProcess(host);
    const seen: string[] = [];
    c.onPush((m) => seen.push(JSON.stringify(m)));
    try {
      await c.call('profiles.save', {
        profile: mockProfile('Work endpoint', proxyUrl, { subModel: 'mock-sub' }),
      });
      const set = await c.call('profiles.setKey', { profile: 'Work endpoint', key: SECRET });
      seen.push(JSON.stringify(set));
      expect(set.stored).toBe(true);
      const ref = set.profiles.find((p) => p.name === 'Work endpoint')?.apiKeyRef;
      expect(ref).toBe('RLM_STUDIO_KEY_WORK_ENDPOINT');
      // Encrypted at rest, readable back by the keychain (what the next host start gets).
      expect(keychain.readAll()).toEqual({ [ref!]: SECRET });

      const { session } = await c.call('session.start', {
        params: { profile: 'Work endpoint', context: { kind: 'demo', name: 'recursive' }, query: null },
      });
      seen.push(JSON.stringify(session));
      await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
      const done = await c.status(session.sessionId, 'finished', 'failed', 'cancelled');
      expect(done.status, done.message ?? '').toBe('finished');
      expect(authSeen.length).toBeGreaterThan(0);
      expect(authSeen.every((a) => a === `Bearer ${SECRET}`)).toBe(true);

      for (const format of ['native', 'rlm-python'] as const) {
        const ex = await c.call('session.export', { sessionId: session.sessionId, format });
        seen.push(JSON.stringify(ex));
      }
      seen.push(JSON.stringify(await c.call('profiles.list', {})));
      seen.push(JSON.stringify(await c.call('sessions.list', {})));
      await host.close();

      const files = [...filesUnder(dirs.runsDir), ...filesUnder(dirs.settingsDir)];
      expect(files.some((f) => f.endsWith('.rlm.jsonl'))).toBe(true);
      expect(files.some((f) => f.endsWith('keys.json'))).toBe(true);
      const forms = [SECRET, Buffer.from(SECRET).toString('base64'), SECRET.slice(8)];
      for (const f of files) {
        const text = readFileSync(f).toString('latin1');
        for (const s of forms) expect(text.includes(s), `${f} contains the key`).toBe(false);
      }
      for (const m of seen) for (const s of forms) expect(m.includes(s)).toBe(false);
      expect(seen.length).toBeGreaterThan(5);

      // Removing it: gone from keys.json.
      const host2 = new Host({ ...dirs, keyStore: keys, env: {}, prewarm: false });
      const c2 = connectInProcess(host2);
      expect((await c2.call('profiles.setKey', { profile: 'Work endpoint', key: null })).stored).toBe(false);
      expect(keychain.readAll()).toEqual({});
      // Deleting a profile takes the keychain entry this host made for it along.
      await c2.call('profiles.setKey', { profile: 'Work endpoint', key: SECRET });
      expect(Object.keys(keychain.readAll())).toEqual(['RLM_STUDIO_KEY_WORK_ENDPOINT']);
      expect((await c2.call('profiles.delete', { profile: 'Work endpoint' })).profiles.map((p) => p.name)).toEqual(['demo']);
      expect(keychain.readAll()).toEqual({});
      await host2.close();
    } finally {
      await host.close();
    }
  });

  it('the keychain never falls back to clear text when the OS cannot encrypt', () => {
    const dirs = tempDirs();
    const k = new KeychainFile(dirs.settingsDir, {
      isEncryptionAvailable: () => false,
      encryptString: () => Buffer.alloc(0),
      decryptString: () => '',
    });
    expect(() => k.set('A_KEY', SECRET)).toThrow(/keychain is not available/);
  });
});
