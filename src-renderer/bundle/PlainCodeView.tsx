// The bundle's code view (aliased in place of monaco/CodeViewImpl.tsx by vite.bundle.config.ts):
// a plain read-only <pre>. Monaco with its worker would add ~5 MB to every shared file, and
// a bundle never edits code.
import { useEffect } from 'react';
import type { CodeViewProps } from '../monaco/code-view-props.ts';

export default function PlainCodeView(props: CodeViewProps) {
  const { value, cutAt, onReady } = props;
  useEffect(() => onReady?.(), [onReady]);
  const cut = cutAt !== undefined && cutAt !== null && cutAt < value.length ? cutAt : null;
  return (
    <pre
      className="code-plain"
      data-testid={props.testId}
      aria-label={props.ariaLabel}
      data-readonly="true"
      style={{ maxHeight: (props.maxLines ?? 30) * 19 + 12 }}
    >
      {cut === null ? (
        value
      ) : (
        <>
          {value.slice(0, cut)}
          <span className="monaco-cut" title="The model did not see this part (output cap).">
            {value.slice(cut)}
          </span>
        </>
      )}
    </pre>
  );
}
