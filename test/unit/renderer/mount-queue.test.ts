// Editors are created one at a time, and none while a log loads (holdEditors).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { enqueueMount, holdEditors } from '../../../src-renderer/lib/mount-queue.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('the editor mount queue', () => {
  it('starts one editor at a time, and none while held, then carries on after the release', () => {
    vi.useFakeTimers();
    const started: string[] = [];
    const done: (() => void)[] = [];
    const release = holdEditors();
    const nested = holdEditors();
    enqueueMount((d) => {
      started.push('a');
      done.push(d);
    });
    enqueueMount((d) => {
      started.push('b');
      done.push(d);
    });
    vi.advanceTimersByTime(1);
    expect(started).toEqual([]);
    release();
    release(); // twice is once
    vi.advanceTimersByTime(1);
    expect(started).toEqual([]);
    nested();
    vi.advanceTimersByTime(1);
    expect(started).toEqual(['a']);
    done[0]?.();
    vi.advanceTimersByTime(1);
    expect(started).toEqual(['a', 'b']);
    done[1]?.();
  });

  it('skips an editor whose view went away before its turn', () => {
    vi.useFakeTimers();
    const started: string[] = [];
    const release = holdEditors();
    const cancel = enqueueMount(() => started.push('gone'));
    enqueueMount((d) => {
      started.push('kept');
      d();
    });
    cancel();
    release();
    vi.advanceTimersByTime(1);
    expect(started).toEqual(['kept']);
  });
});
