// Endpoint profiles, persisted as JSON in the settings folder. A profile names the
// environment variable (web mode) or keychain entry (desktop) that holds its key; the key
// itself is never written here, nor into logs, events or exports.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { DEMO_PROFILE_NAME, EndpointProfile } from '../../src-shared/protocol.ts';

/** Where settings live unless the user says otherwise: $RLM_STUDIO_SETTINGS, else the per-user config folder. */
export function defaultSettingsDir(): string {
  const override = process.env['RLM_STUDIO_SETTINGS'];
  if (override) return override;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'rlm-studio');
  if (process.platform === 'win32') return join(process.env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), 'rlm-studio');
  return join(process.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), 'rlm-studio');
}

const File = z.strictObject({ version: z.literal(1), profiles: z.array(EndpointProfile) });

export class ProfileStore {
  private readonly path: string;
  private profiles: EndpointProfile[] = [];
  /** Set when the file existed but could not be read; it is then left alone until a save. */
  readonly loadProblem: string | null = null;

  constructor(settingsDir: string) {
    this.path = join(settingsDir, 'profiles.json');
    try {
      const parsed = File.safeParse(JSON.parse(readFileSync(this.path, 'utf8')));
      if (parsed.success) this.profiles = parsed.data.profiles.filter((p) => p.name !== DEMO_PROFILE_NAME);
      else this.loadProblem = `${this.path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.loadProblem = `${this.path}: ${(err as Error).message}`;
    }
  }

  list(): EndpointProfile[] {
    return [...this.profiles];
  }

  get(name: string): EndpointProfile | null {
    return this.profiles.find((p) => p.name === name) ?? null;
  }

  /** Adds or replaces by name. */
  save(profile: EndpointProfile): EndpointProfile[] {
    if (profile.name === DEMO_PROFILE_NAME) throw new Error(`"${DEMO_PROFILE_NAME}" is the built-in profile; pick another name`);
    const next = [...this.profiles];
    const i = next.findIndex((p) => p.name === profile.name);
    if (i >= 0) next[i] = profile;
    else next.push(profile);
    this.write(next);
    return this.list();
  }

  /** Removes a profile by name; returns the removed profile, or null when there was none. */
  delete(name: string): EndpointProfile | null {
    if (name === DEMO_PROFILE_NAME) throw new Error(`"${DEMO_PROFILE_NAME}" is the built-in profile; it cannot be deleted`);
    const gone = this.get(name);
    if (!gone) return null;
    this.write(this.profiles.filter((p) => p.name !== name));
    return gone;
  }

  /** Writes atomically (temp file, then rename); the list in memory changes only once the file has. */
  private write(next: EndpointProfile[]): void {
    mkdirSync(join(this.path, '..'), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: 1, profiles: next }, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
    this.profiles = next;
  }
}
