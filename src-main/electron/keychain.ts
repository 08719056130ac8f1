// The desktop key store: keys.json in the settings dir maps a keychain reference to the key
// encrypted with safeStorage (the OS keychain), base64. No Electron import here, so it is
// tested in Node with a stand-in for safeStorage. Keys are never written in clear.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

const REF = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class KeychainFile {
  private readonly path: string;
  private readonly safe: SafeStorageLike;

  constructor(settingsDir: string, safe: SafeStorageLike) {
    this.path = join(settingsDir, 'keys.json');
    this.safe = safe;
  }

  private readRaw(): Record<string, string> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.path, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null) return {};
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string' && REF.test(k)) out[k] = v;
      return out;
    } catch {
      // Missing or unreadable: no keys, not no app.
      return {};
    }
  }

  /** Every stored key in clear, by reference (handed to the host process's environment). */
  readAll(): Record<string, string> {
    if (!this.safe.isEncryptionAvailable()) return {};
    const out: Record<string, string> = {};
    for (const [ref, b64] of Object.entries(this.readRaw())) {
      try {
        out[ref] = this.safe.decryptString(Buffer.from(b64, 'base64'));
      } catch {
        // A key encrypted by another user or machine: skipped.
      }
    }
    return out;
  }

  /** Throws with a reason when the OS offers no encryption (we never fall back to clear text). */
  set(ref: string, key: string | null): void {
    if (!REF.test(ref)) throw new Error(`"${ref}" is not a valid key reference`);
    if (key !== null && !this.safe.isEncryptionAvailable()) {
      throw new Error(
        'the OS keychain is not available (safeStorage cannot encrypt here), so the key was not stored; set it in the environment instead',
      );
    }
    const all = this.readRaw();
    if (key === null) delete all[ref];
    else all[ref] = this.safe.encryptString(key).toString('base64');
    mkdirSync(join(this.path, '..'), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
