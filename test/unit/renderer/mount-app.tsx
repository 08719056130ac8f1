// The whole app over one local session ('s1') of `events`, in the tree's list mode, for
// tests that drive the views as a person would.
import { act, render } from '@testing-library/react';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import type { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { usePrefs } from '../../../src-renderer/store/prefs.ts';
import { servicesWith } from './helpers.ts';

export function mountApp(events: TrajectoryEvent[]) {
  usePrefs.getState().set({ treeMode: 'list' });
  const { store, svc } = servicesWith(events);
  const utils = render(
    <ServicesProvider services={svc}>
      <App />
    </ServicesProvider>,
  );
  const traj = store.getState().sessions.get('s1')!.traj;
  return { store, svc, traj, ...utils };
}

/** Opens `events` as a second session ('s2') and shows the Compare panel of 's1' against it. */
export function compareWith(store: ReturnType<typeof createStudioStore>, events: TrajectoryEvent[]): void {
  act(() => {
    store.getState().addLocalSession('s2', 'other');
    store.getState().ingestEvents('s2', events);
    store.getState().flushEvents();
    store.getState().setCompare({ a: 's1', b: 's2' });
    store.getState().setPanel('compare');
  });
}
