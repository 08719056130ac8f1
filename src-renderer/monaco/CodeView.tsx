// Code and output in Monaco, loaded lazily so the first view does not wait for it.
import { lazy, Suspense, useEffect, useState } from 'react';
import { usePrefs } from '../store/prefs.ts';
import type { CodeViewProps } from './code-view-props.ts';
import { enqueueMount } from '../lib/mount-queue.ts';

const Impl = lazy(() => import('./CodeViewImpl.tsx'));

function useMountTurn(): [boolean, () => void] {
  const [turn, setTurn] = useState(false);
  const [ready, setReady] = useState<() => void>(() => () => undefined);
  useEffect(
    () =>
      enqueueMount((done) => {
        setReady(() => done);
        setTurn(true);
      }),
    [],
  );
  return [turn, ready];
}

export function CodeView(props: CodeViewProps) {
  const theme = usePrefs((p) => p.theme);
  const [turn, ready] = useMountTurn();
  const fallback = (
    <pre className="code-fallback" data-testid={props.testId}>
      {props.value.slice(0, 5000)}
    </pre>
  );
  if (!turn) return fallback;
  return (
    <Suspense fallback={fallback}>
      <Impl {...props} theme={theme} onReady={ready} />
    </Suspense>
  );
}
