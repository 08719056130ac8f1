// Global keyboard shortcuts (ignored while typing in inputs or Monaco).
import { useEffect } from 'react';
import { usePrefs } from './store/prefs.ts';
import { seek } from './views/ReplayBar.tsx';
import type { Panel } from './store/studio.ts';
import { useServices } from './app/context.tsx';

function typing(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  return (
    t.isContentEditable ||
    t.tagName === 'INPUT' ||
    t.tagName === 'TEXTAREA' ||
    t.tagName === 'SELECT' ||
    t.closest('.monaco-editor') !== null
  );
}

/** `panels`: the tabs shown, in order (Alt+1… picks them). */
export function useShortcuts(setHelp: (f: (h: boolean) => boolean) => void, panels: readonly Panel[]): void {
  const svc = useServices();
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const st = svc.store.getState();
      const id = st.activeId;
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'o') {
        e.preventDefault();
        document.querySelector<HTMLInputElement>('[data-testid="open-file"]')?.click();
        return;
      }
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f' && id) {
        e.preventDefault();
        st.setPanel('search');
        return;
      }
      const n = Number(e.key);
      if (e.altKey && Number.isInteger(n) && n >= 1 && n <= panels.length) {
        st.setPanel(panels[n - 1] ?? 'run');
        return;
      }
      if (id && (e.key === 'F6' || e.key === 'F8' || e.key === 'F10')) {
        e.preventDefault();
        void svc.control(id, e.key === 'F6' ? 'pause' : e.key === 'F8' ? 'continue' : 'step');
        return;
      }
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '?') setHelp((h) => !h);
      else if (e.key === 'Escape') setHelp(() => false);
      else if (e.key === 't') usePrefs.getState().set({ theme: usePrefs.getState().theme === 'dark' ? 'light' : 'dark' });
      else if (e.key === '/' && id) {
        e.preventDefault();
        st.setPanel('search');
      } else if (e.key === 'r' && id) seek(svc.store, id, 0);
      else if (['j', 'k', 'u', '[', ']'].includes(e.key) && id) {
        const entry = st.sessions.get(id);
        const r = st.replay.get(id);
        const traj = r ? r.traj : entry?.traj;
        const sel = st.selection.get(id);
        const runId = sel?.runId ?? traj?.roots[0];
        const run = runId ? traj?.runs.get(runId) : undefined;
        if (!traj || !run) return;
        if (e.key === 'u') {
          if (run.parentRunId) st.select(id, { runId: run.parentRunId, iteration: run.spawnedBy?.iteration ?? null });
          return;
        }
        if (e.key === '[' || e.key === ']') {
          // The previous or next turn (root run), from wherever in the current one the view is.
          const turn = traj.roots[traj.roots.indexOf(run.rootRunId) + (e.key === ']' ? 1 : -1)];
          if (turn) st.select(id, { runId: turn, iteration: null });
          return;
        }
        const its = run.iterations;
        const cur = its.findIndex((i) => i.iteration === (sel?.iteration ?? its[its.length - 1]?.iteration));
        const next = its[Math.max(0, Math.min(its.length - 1, cur + (e.key === 'j' ? 1 : -1)))];
        if (next) st.select(id, { runId: run.id, iteration: next.iteration });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [svc, setHelp, panels]);
}
