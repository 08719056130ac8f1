import { readFileSync } from 'node:fs';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { Services } from '../../../src-renderer/app/services.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import type { Carrier } from '../../../src-renderer/transport/carrier.ts';

import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

export const FIXTURES = REFERENCE_FIXTURES;

export function fixtureEvents(name: string): TrajectoryEvent[] {
  return readRlmPythonText(readFileSync(`${FIXTURES}/${name}`, 'utf8')).events;
}

/** A store whose frames run only when the test says so. */
export function manualStore(msPerClockRead = 0) {
  const frames: (() => void)[] = [];
  let now = 0;
  const store = createStudioStore({ request: (cb) => frames.push(cb), now: () => (now += msPerClockRead) });
  return {
    store,
    runFrames(n = 1000): number {
      let ran = 0;
      while (frames.length > 0 && ran < n) {
        (frames.shift() as () => void)();
        ran++;
      }
      return ran;
    },
    advance(ms: number): void {
      now += ms;
    },
    frames,
  };
}

export function servicesWith(events: TrajectoryEvent[], title = 'fixture', carrier: Carrier | null = null) {
  const store = createStudioStore();
  const svc = new Services(store, carrier, () => null);
  store.getState().addLocalSession('s1', title);
  store.getState().ingestEvents('s1', events);
  store.getState().flushEvents();
  return { store, svc };
}
