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

/**
 * Loads Monaco and builds one throwaway editor while the page is idle, so neither the module's
 * evaluation (~150 ms) nor the first editor (~250 ms) becomes a long task while a log loads.
 * Sets `data-monaco="ready"` on <html> when done (the benchmark waits for it).
 */
export async function prewarmMonaco(): Promise<void> {
  const mod = await import('./CodeViewImpl.tsx');
  await mod.warmUp(usePrefs.getState().theme);
  document.documentElement.dataset.monaco = 'ready';
}

export function CodeView(props: CodeViewProps) {
  const theme = usePrefs((p) => p.theme);
  return (
    <Suspense fallback={<pre className="code-fallback">{props.value.slice(0, 5000)}</pre>}>
      <Impl {...props} theme={theme} />
    </Suspense>
  );
}
