// The worked examples a run's system prompt showed, each openable or copyable.
import { useState } from 'react';
import type { WorkedExampleRef } from '../../../src-shared/events.ts';
import { useServices } from '../../app/context.tsx';
import { fmtInt } from '../../lib/format.ts';
import { REPL_LABEL } from '../../lib/repl-language.ts';

/**
 * The saved logs this run was shown as worked examples. With a host each opens in the app (the
 * path is the host's); without one (a bundle, a file opened in the browser) the path can be copied.
 */
export function WorkedExamplesLine({ examples }: { examples: WorkedExampleRef[] }) {
  const svc = useServices();
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div className="run-examples" data-testid="run-examples">
      worked examples:
      {examples.map((e, i) => (
        <span
          key={i}
          className="run-example"
          title={`${fmtInt(e.chars)} characters of the system prompt${e.repl ? `, ${REPL_LABEL[e.repl]} code` : ''}`}
        >
          {' '}
          {svc.host ? (
            <button type="button" className="link" onClick={() => void svc.openPath(e.source)} data-testid={`run-example-open-${i}`}>
              {e.source}
            </button>
          ) : (
            <>
              <code>{e.source}</code>{' '}
              <button
                type="button"
                onClick={() =>
                  void navigator.clipboard?.writeText(e.source).then(
                    () => setCopied(e.source),
                    () => setCopied(null),
                  )
                }
                aria-label={`Copy the path ${e.source}`}
                data-testid={`run-example-copy-${i}`}
              >
                {copied === e.source ? 'copied' : 'copy path'}
              </button>
            </>
          )}
          <span className="muted"> ({fmtInt(e.chars)} chars)</span>
        </span>
      ))}
    </div>
  );
}
