import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
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
