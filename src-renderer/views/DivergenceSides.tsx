// The first divergence of two sessions, shown: each side's differing text (code, reply or
// output) around the first line that differs, that line marked, and a way into each session.
import type { Divergence } from '../lib/divergence.ts';

/** Lines shown before the first differing line, and in all. */
const BEFORE = 3;
const SHOWN = 20;

const KIND: Record<Divergence['what'], string> = { code: 'code', reply: 'reply', output: 'output', missing: 'reply' };

function Side({ title, text, line, kind, onOpen }: { title: string; text: string | null; line: number; kind: string; onOpen: () => void }) {
  const lines = text?.split('\n') ?? [];
  const from = Math.max(0, line - 1 - BEFORE);
  const shown = lines.slice(from, from + SHOWN);
  return (
    <figure className="divergence-side">
      <figcaption>
        <strong>{title}</strong> · {kind} {/* A session without that iteration has nothing there to open. */}
        {text === null ? null : (
          <button type="button" className="link" onClick={onOpen}>
            open
          </button>
        )}
      </figcaption>
      {text === null ? (
        <p className="muted">no such iteration</p>
      ) : (
        <pre>
          {from > 0 ? <span className="muted">{`… ${from} ${from === 1 ? 'line' : 'lines'} above\n`}</span> : null}
          {shown.map((l, i) => (
            <span key={i} className={from + i + 1 === line ? 'differs' : undefined}>
              {`${l}\n`}
            </span>
          ))}
          {from + shown.length < lines.length ? <span className="muted">{`… ${lines.length - from - shown.length} more`}</span> : null}
        </pre>
      )}
    </figure>
  );
}

export function DivergenceSides({ div, titles, onOpen }: { div: Divergence; titles: [string, string]; onOpen: (side: 'a' | 'b') => void }) {
  const kind = `${KIND[div.what]} of iteration ${div.iteration}${div.what === 'missing' ? '' : `, from line ${div.line}`}`;
  return (
    <div className="divergence-sides" data-testid="divergence-sides">
      <Side title={titles[0]} text={div.a} line={div.line} kind={kind} onOpen={() => onOpen('a')} />
      <Side title={titles[1]} text={div.b} line={div.line} kind={kind} onOpen={() => onOpen('b')} />
    </div>
  );
}
