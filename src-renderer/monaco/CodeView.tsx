// Code and output in Monaco, loaded lazily so the first view does not wait for it.
import { lazy, Suspense } from 'react';
import { usePrefs } from '../store/prefs.ts';

export interface CodeViewProps {
  value: string;
  language?: 'javascript' | 'plaintext';
  readOnly?: boolean;
  onChange?: (v: string) => void;
  /** Character offset from which the model did not see the text. */
  cutAt?: number | null;
  maxLines?: number;
  minLines?: number;
  testId?: string;
  ariaLabel?: string;
  theme?: 'dark' | 'light';
}

const Impl = lazy(() => import('./CodeViewImpl.tsx'));

export function CodeView(props: CodeViewProps) {
  const theme = usePrefs((p) => p.theme);
  return (
    <Suspense fallback={<pre className="code-fallback">{props.value.slice(0, 5000)}</pre>}>
      <Impl {...props} theme={theme} />
    </Suspense>
  );
}
