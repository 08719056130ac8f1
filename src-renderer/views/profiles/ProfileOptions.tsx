// The <option>s of a profile picker: the built-in demo profile first, then the saved ones.
import { DEMO_PROFILE_NAME, type EndpointProfile } from '../../../src-shared/protocol.ts';

/** `valuePrefix` goes before each name in the option's value (pickers that mix in other choices). */
export function ProfileOptions({ profiles, valuePrefix = '' }: { profiles: readonly EndpointProfile[]; valuePrefix?: string }) {
  return (
    <>
      <option value={`${valuePrefix}${DEMO_PROFILE_NAME}`}>{DEMO_PROFILE_NAME} (bundled mock model, no key)</option>
      {/* The host lists the demo profile too; it has its own option above. */}
      {profiles
        .filter((p) => p.name !== DEMO_PROFILE_NAME)
        .map((p) => (
          <option key={p.name} value={`${valuePrefix}${p.name}`}>
            {p.name} ({p.model})
          </option>
        ))}
    </>
  );
}
