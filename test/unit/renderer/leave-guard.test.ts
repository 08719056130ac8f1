// Leaving the page while sessions read from local files are open asks first (they exist only
// in the page); host sessions come back on reload and do not.
import { describe, expect, it } from 'vitest';
import { installLeaveGuard, sessionsOnlyInPage } from '../../../src-renderer/app/leave-guard.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { hostSummary } from './helpers.ts';

function leave(target: EventTarget): boolean {
  const event = new Event('beforeunload', { cancelable: true });
  target.dispatchEvent(event);
  return event.defaultPrevented;
}

describe('leaving the page', () => {
  it('asks while a session read from a local file is open, and only then', () => {
    const store = createStudioStore();
    const target = new EventTarget();
    installLeaveGuard(target, store.getState);
    expect(leave(target)).toBe(false);
    store.getState().upsertSummary(hostSummary('h1'));
    expect(sessionsOnlyInPage(store.getState())).toBe(0);
    expect(leave(target)).toBe(false);
    store.getState().addLocalSession('local-1', 'dropped.jsonl');
    expect(sessionsOnlyInPage(store.getState())).toBe(1);
    expect(leave(target)).toBe(true);
    store.getState().closeSession('local-1');
    expect(leave(target)).toBe(false);
  });
});
