// The context a log was made from, for re-executing or forking a log that does not hold it
// (the reference library's logs never do): a file on the host, or one read in this page.
import type { ContextSource } from '../../src-shared/protocol.ts';
import type { SessionEntry } from '../store/studio.ts';

/**
 * Whether re-running a session's code (a fork, a re-execution) must be told its context.
 * required: a log that holds none and has no recipe on the host (the reference library's, a
 * dropped file); optional: a saved log the host may have a recipe for; none: a session this
 * host ran.
 */
export type ContextNeed = 'required' | 'optional' | 'none';

export function contextNeedOf(entry: SessionEntry | undefined): ContextNeed {
  if (!entry) return 'required';
  const format = entry.summary?.format ?? entry.format;
  if (format === 'rlm-python' || entry.source === 'local') return 'required';
  // A re-execution run by this host keeps the context it was given; one opened from a file does not.
  if (entry.header?.rerunOf) return entry.summary?.readOnly ? 'required' : 'optional';
  return entry.summary?.readOnly ? 'optional' : 'none';
}

/** Whether the host can have a recipe for the session (its endpoint, model, context): not for a log it did not run as a session. */
export function mayHaveRecipe(entry: SessionEntry | undefined): boolean {
  if (!entry) return false;
  const format = entry.summary?.format ?? entry.format;
  return !(format === 'rlm-python' || entry.source === 'local' || entry.header?.rerunOf);
}

export interface ContextChoice {
  kind: 'path' | 'upload';
  path: string;
  /** The uploaded file's text. */
  text: string;
  /** The uploaded file was JSON (parsed as the reference library does). */
  json: boolean;
}

/** Null when nothing was given. */
export function contextSourceOf(c: ContextChoice): ContextSource | null {
  if (c.kind === 'path') return c.path.trim() === '' ? null : { kind: 'file', path: c.path.trim() };
  if (c.text === '') return null;
  return c.json ? { kind: 'json', json: c.text } : { kind: 'text', text: c.text };
}

export function ContextFields({
  value,
  onChange,
  idPrefix,
  optional = false,
}: {
  value: ContextChoice;
  onChange: (c: ContextChoice) => void;
  idPrefix: string;
  optional?: boolean;
}) {
  return (
    <fieldset className="context-fields">
      <legend>Context the log was made from{optional ? ' (leave empty: the one the host recorded)' : ''}</legend>
      <label>
        <input
          type="radio"
          name={`${idPrefix}-ctx`}
          checked={value.kind === 'path'}
          onChange={() => onChange({ ...value, kind: 'path' })}
        />{' '}
        a file on the host
      </label>
      <label>
        <input
          type="radio"
          name={`${idPrefix}-ctx`}
          checked={value.kind === 'upload'}
          onChange={() => onChange({ ...value, kind: 'upload' })}
        />{' '}
        a file from this computer
      </label>
      {value.kind === 'path' ? (
        <input
          value={value.path}
          onChange={(e) => onChange({ ...value, path: e.target.value })}
          placeholder="path on the host, e.g. contexts/a_needle.txt"
          aria-label="Context file on the host"
          data-testid={`${idPrefix}-context-path`}
          spellCheck={false}
        />
      ) : (
        <input
          type="file"
          aria-label="Context file from this computer"
          data-testid={`${idPrefix}-context-file`}
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void f.text().then((text) => onChange({ ...value, text, json: /\.json$/i.test(f.name) }));
          }}
        />
      )}
      <small className="muted">A .json file is parsed, any other is text, as on the command line.</small>
    </fieldset>
  );
}
