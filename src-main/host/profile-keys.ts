// Endpoint profiles as the protocol sees them: the built-in demo profile (served by an
// in-host mock-llm) before the saved ones, their keys (stored by `profiles.setKey` on the
// desktop, else named environment variables), and a profile resolved to what a worker needs.
import { demoBehaviours } from '../mock-llm/behaviours.ts';
import { DEMO_PROFILE_NAME, type EndpointProfile, type Replies } from '../../src-shared/protocol.ts';
import { startMockLlm, type MockLlmServer } from '../mock-llm/server.ts';
import { CommandError } from './command-error.ts';
import type { HostOptions } from './host-options.ts';
import { ProfileStore } from './profiles.ts';

/** The keychain entry `profiles.setKey` makes for a profile without one: derived from its name, never holding the key. */
function keychainRefOf(profile: string): string {
  return `RLM_STUDIO_KEY_${profile.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}`;
}

function demoProfile(): EndpointProfile {
  return { name: DEMO_PROFILE_NAME, baseUrl: 'http://127.0.0.1/v1', model: 'mock-root', subModel: null, apiKeyRef: null, prices: {} };
}

export class ProfileKeys {
  private readonly opts: Pick<HostOptions, 'settingsDir' | 'demoLatencyMs' | 'env' | 'resolveKey' | 'keyStore'>;
  private readonly profiles: ProfileStore;
  private demo: Promise<MockLlmServer> | null = null;
  /** Keys stored by `profiles.setKey` in this host's life, by reference (never persisted here). */
  private readonly storedKeys = new Map<string, string>();

  constructor(opts: Pick<HostOptions, 'settingsDir' | 'demoLatencyMs' | 'env' | 'resolveKey' | 'keyStore'>) {
    this.opts = opts;
    this.profiles = new ProfileStore(opts.settingsDir);
  }

  /** The demo profile first, then the saved ones. */
  list(): EndpointProfile[] {
    return [demoProfile(), ...this.profiles.list()];
  }

  save(profile: EndpointProfile): Replies['profiles.save'] {
    try {
      this.profiles.save(profile);
    } catch (err) {
      throw new CommandError('bad_request', (err as Error).message);
    }
    return { profiles: this.list() };
  }

  private async demoServer(): Promise<MockLlmServer> {
    const latencyMs = this.opts.demoLatencyMs ?? 120;
    this.demo ??= startMockLlm({ port: 0, latencyMs, costPerMTok: 0.5, ...demoBehaviours(latencyMs) });
    return this.demo;
  }

  /** Desktop: the key goes to the keychain (via the main process) and stays in memory here; never into profiles.json. */
  async setKey(name: string, key: string | null): Promise<Replies['profiles.setKey']> {
    if (!this.opts.keyStore) {
      throw new CommandError(
        'bad_request',
        'this host (web mode) does not store API keys: set the environment variable named by the profile\'s "API key env var" (apiKeyRef) where rlm-studio serve runs, then restart it',
      );
    }
    if (name === DEMO_PROFILE_NAME) throw new CommandError('bad_request', `the built-in "${DEMO_PROFILE_NAME}" profile needs no key`);
    const profile = this.profiles.get(name);
    if (!profile) throw new CommandError('not_found', `no endpoint profile named "${name}"`);
    let ref = profile.apiKeyRef;
    if (ref === null) {
      if (key === null) return { profiles: this.list(), profile: name, stored: false };
      ref = keychainRefOf(name);
      this.profiles.save({ ...profile, apiKeyRef: ref });
    }
    try {
      await this.opts.keyStore.set(ref, key);
    } catch (err) {
      throw new CommandError('conflict', `the key of "${name}" was not stored: ${(err as Error).message}`);
    }
    if (key === null) this.storedKeys.delete(ref);
    else this.storedKeys.set(ref, key);
    return { profiles: this.list(), profile: name, stored: key !== null };
  }

  async deleteProfile(name: string): Promise<Replies['profiles.delete']> {
    let gone: EndpointProfile | null;
    try {
      gone = this.profiles.delete(name);
    } catch (err) {
      throw new CommandError('bad_request', (err as Error).message);
    }
    if (!gone) throw new CommandError('not_found', `no endpoint profile named "${name}"`);
    // Only a keychain entry this host made for the profile; a named environment variable is the user's.
    const ref = gone.apiKeyRef;
    if (ref !== null && ref === keychainRefOf(name) && this.opts.keyStore) {
      this.storedKeys.delete(ref);
      try {
        await this.opts.keyStore.set(ref, null);
      } catch (err) {
        throw new CommandError(
          'conflict',
          `"${name}" was deleted, but its key could not be removed from the keychain: ${(err as Error).message}`,
        );
      }
    }
    return { profiles: this.list() };
  }

  async resolveProfile(name: string): Promise<{ profile: EndpointProfile; baseUrl: string; apiKey: string | null }> {
    if (name === DEMO_PROFILE_NAME) {
      const demo = await this.demoServer();
      return { profile: demoProfile(), baseUrl: demo.url, apiKey: null };
    }
    const profile = this.profiles.get(name);
    if (!profile) throw new CommandError('not_found', `no endpoint profile named "${name}"`);
    let apiKey: string | null = null;
    if (profile.apiKeyRef) {
      apiKey =
        this.storedKeys.get(profile.apiKeyRef) ??
        this.opts.resolveKey?.(profile.apiKeyRef) ??
        (this.opts.env ?? process.env)[profile.apiKeyRef] ??
        null;
      if (apiKey === null)
        throw new CommandError('bad_request', `profile "${name}": its API key (${profile.apiKeyRef}) is not set in the host's environment`);
    }
    return { profile, baseUrl: profile.baseUrl, apiKey };
  }

  /** Stops the demo model if it was started. */
  async close(): Promise<void> {
    if (this.demo) await (await this.demo).close();
  }
}
