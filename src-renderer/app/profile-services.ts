// Endpoint profiles (`profiles.save`, `profiles.delete`, `profiles.setKey`) for the profiles panel. Kept beside
// Services (it only uses its public host and store) so services.ts stays untouched. Both
// return the host's error text instead of notifying: the panel shows it next to the field.
import type { EndpointProfile } from '../../src-shared/protocol.ts';
import type { Services } from './services.ts';

export type ProfileResult<T> = { ok: true; value: T } | { ok: false; error: string };

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const NO_HOST = 'no host connected (open the app through `rlm-studio serve` or the desktop app)';

/** Saves (adds or replaces by name) a profile; the store gets the host's new list. */
export async function saveProfile(svc: Services, profile: EndpointProfile): Promise<ProfileResult<EndpointProfile[]>> {
  if (!svc.host) return { ok: false, error: NO_HOST };
  try {
    const { profiles } = await svc.host.call('profiles.save', { profile });
    svc.store.getState().setProfiles(profiles);
    return { ok: true, value: profiles };
  } catch (err) {
    return { ok: false, error: message(err) };
  }
}

/** Deletes a saved profile (and a keychain key the host stored for it); the store gets the host's new list. */
export async function deleteProfile(svc: Services, name: string): Promise<ProfileResult<EndpointProfile[]>> {
  if (!svc.host) return { ok: false, error: NO_HOST };
  try {
    const { profiles } = await svc.host.call('profiles.delete', { profile: name });
    svc.store.getState().setProfiles(profiles);
    return { ok: true, value: profiles };
  } catch (err) {
    return { ok: false, error: message(err) };
  }
}

/**
 * Sends a profile's API key (null removes it). The key lives only in this call's arguments:
 * the reply carries the profile list (never the key), and only that reaches the store.
 */
export async function setProfileKey(svc: Services, profile: string, key: string | null): Promise<ProfileResult<{ stored: boolean }>> {
  if (!svc.host) return { ok: false, error: NO_HOST };
  // Offline, the client would queue the command (and the key) until it reconnects.
  if (svc.host.state !== 'open') return { ok: false, error: 'not connected to the host; the key was not sent' };
  try {
    const reply = await svc.host.call('profiles.setKey', { profile, key });
    svc.store.getState().setProfiles(reply.profiles);
    return { ok: true, value: { stored: reply.stored } };
  } catch (err) {
    return { ok: false, error: message(err) };
  }
}
