import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { CoverageState } from '../store/coverage.ts';
import type { LabelsState } from '../store/labels.ts';
import type { LiveRepliesState } from '../store/live-replies.ts';
import type { PausedDraftsState } from '../store/paused-drafts.ts';
import type { PolicyState } from '../store/policy.ts';
import type { StudioState } from '../store/studio.ts';
import type { Services } from './services.ts';

const ServicesContext = createContext<Services | null>(null);

export function ServicesProvider({ services, children }: { services: Services; children: ReactNode }) {
  return <ServicesContext.Provider value={services}>{children}</ServicesContext.Provider>;
}

export function useServices(): Services {
  const s = useContext(ServicesContext);
  if (!s) throw new Error('useServices outside ServicesProvider');
  return s;
}

export function useStudio<T>(selector: (s: StudioState) => T): T {
  return useStore(useServices().store, selector);
}

/** The app's coverage maps (store/coverage.ts). */
export function useCoverage<T>(selector: (s: CoverageState) => T): T {
  return useStore(useServices().store.coverage, selector);
}

/** The app's session labels (store/labels.ts). */
export function useLabels<T>(selector: (s: LabelsState) => T): T {
  return useStore(useServices().store.labels, selector);
}

/** The app's policy metrics (store/policy.ts). */
export function usePolicy<T>(selector: (s: PolicyState) => T): T {
  return useStore(useServices().store.policy, selector);
}

/** The app's paused drafts (store/paused-drafts.ts). */
export function usePausedDrafts<T>(selector: (s: PausedDraftsState) => T): T {
  return useStore(useServices().store.drafts, selector);
}

/** The app's streaming replies (store/live-replies.ts). */
export function useLiveReplies<T>(selector: (s: LiveRepliesState) => T): T {
  return useStore(useServices().store.liveReplies, selector);
}
