// Sessions read from local files live only in this page: a reload or a closed tab dropped them
// without a word. In web mode the browser asks first while any is open. Not in the desktop
// app, where a cancelled `beforeunload` would stop the window from closing without asking.
import type { StudioState } from '../store/studio.ts';

/** Sessions that a reload would lose: those parsed in this page from a local file. */
export function sessionsOnlyInPage(state: Pick<StudioState, 'sessions'>): number {
  let n = 0;
  for (const entry of state.sessions.values()) if (entry.source === 'local') n++;
  return n;
}

/** Asks before the page is left while `getState` holds sessions only this page has. */
export function installLeaveGuard(win: Pick<Window, 'addEventListener'>, getState: () => Pick<StudioState, 'sessions'>): void {
  win.addEventListener('beforeunload', (event) => {
    if (sessionsOnlyInPage(getState()) === 0) return;
    event.preventDefault();
    // Older browsers ask only when returnValue is set; its text is not shown by any of them.
    event.returnValue = '';
  });
}
