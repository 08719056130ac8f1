// Text from a log or a model, shown as text (React escapes it; never HTML). Long text is
// cut in the DOM with a button that opens the whole of it in Monaco (which virtualises).
import { useState } from 'react';
import { CodeView } from '../monaco/CodeView.tsx';

const DOM_CAP = 4000;

export function TextBlock({ text, className, testId }: { text: string; className?: string; testId?: string }) {
  const [full, setFull] = useState(false);
  if (full) return <CodeView value={text} language="plaintext" maxLines={40} testId={testId} />;
  return (
    <div className={`text-block ${className ?? ''}`} data-testid={testId}>
      <pre>{text.length > DOM_CAP ? text.slice(0, DOM_CAP) : text}</pre>
      {text.length > DOM_CAP ? (
        <button type="button" className="link" onClick={() => setFull(true)}>
          show all {text.length.toLocaleString('en-US')} characters
        </button>
      ) : null}
    </div>
  );
}
