// The sampling settings a run's calls were sent with.
import type { RequestFields } from '../../../src-shared/events.ts';

/** What the run's requests carried besides model and messages (temperature, seed…), by the endpoint's names. */
export function SamplingLine({ sampling }: { sampling: RequestFields }) {
  const fields = (f: Record<string, unknown>): string =>
    Object.entries(f)
      .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' · ') || 'endpoint defaults';
  return (
    <div className="run-meta" data-testid="run-sampling">
      requests: {fields(sampling.turns)}
      {sampling.subcalls ? `; sub-calls: ${fields(sampling.subcalls)}` : ''}
    </div>
  );
}
