// Retried model requests, beside a time or a count that includes them (a reply, a sub-call, a
// run, an evaluation's task).
import { retriesText } from '../../src-shared/events.ts';

export function RetriesNote({ retries, testId = 'retries' }: { retries: number; testId?: string }) {
  return (
    <span
      className="retries"
      data-testid={testId}
      title="Requests the endpoint refused or failed (429, 5xx, timeouts) before it answered; the time includes them"
    >
      {` · ${retriesText(retries)}`}
    </span>
  );
}
