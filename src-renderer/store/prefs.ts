// Layout preferences: per user, survive reloads (localStorage), never part of a session.
import { create } from 'zustand';
import type { Measure } from '../lib/run-derivations.ts';

export interface Prefs {
  theme: 'dark' | 'light';
  /** Follow the live run (select where the newest event happened) or stay put. */
  follow: boolean;
  colourBy: Measure;
  treeMode: 'list' | 'graph';
}

const KEY = 'rlm-studio.prefs.v1';

function load(): Prefs {
  const d: Prefs = { theme: 'dark', follow: true, colourBy: 'cost', treeMode: 'list' };
  try {
    const raw = typeof localStorage !== 'undefined' ? localStorage.getItem(KEY) : null;
    if (!raw) return d;
    const v = JSON.parse(raw) as Partial<Prefs>;
    return {
      theme: v.theme === 'light' ? 'light' : 'dark',
      follow: typeof v.follow === 'boolean' ? v.follow : d.follow,
      colourBy: typeof v.colourBy === 'string' ? v.colourBy : d.colourBy,
      treeMode: v.treeMode === 'graph' ? 'graph' : 'list',
    };
  } catch {
    return d;
  }
}

export const usePrefs = create<Prefs & { set(p: Partial<Prefs>): void }>()((set, get) => ({
  ...load(),
  set: (p) => {
    set(p);
    const { theme, follow, colourBy, treeMode } = get();
    try {
      localStorage.setItem(KEY, JSON.stringify({ theme, follow, colourBy, treeMode }));
    } catch {
      /* private mode: preferences just do not persist */
    }
  },
}));
