// The folders the Findings view reads besides the open evaluations: added by the person,
// kept while the app runs and across reloads (localStorage), so leaving the tab to open a
// finding and coming back finds them still there.
import { create } from 'zustand';

const KEY = 'rlm-studio.findings-folders.v1';

function load(): string[] {
  try {
    const raw = typeof localStorage !== 'undefined' ? localStorage.getItem(KEY) : null;
    const v = raw ? (JSON.parse(raw) as unknown) : [];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

interface FindingsFolders {
  folders: string[];
  add(path: string): void;
  remove(path: string): void;
}

function save(folders: string[]): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(folders));
  } catch {
    // Storage full or denied: the folders last for this page only.
  }
}

export const useFindingsFolders = create<FindingsFolders>()((set, get) => ({
  folders: load(),
  add: (path) => {
    if (get().folders.includes(path)) return;
    const folders = [...get().folders, path];
    save(folders);
    set({ folders });
  },
  remove: (path) => {
    const folders = get().folders.filter((f) => f !== path);
    save(folders);
    set({ folders });
  },
}));
