// A bench step that stops moving names itself on stderr, so a bench killed from outside (a
// test's time limit) says where it stood.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { step } from '../../../bench/lib.ts';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function captureStderr(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

describe('bench step', () => {
  it('names a step still running after the warning time, again each time as long passes, and stops once it ends', async () => {
    vi.useFakeTimers();
    const lines = captureStderr();
    let finish: (v: number) => void = () => undefined;
    const done = step('loading the context', () => new Promise<number>((res) => (finish = res)), 1_000);
    await vi.advanceTimersByTimeAsync(2_500);
    expect(lines).toEqual(['bench: still in loading the context after 1 s\n', 'bench: still in loading the context after 2 s\n']);
    finish(7);
    await expect(done).resolves.toBe(7);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(lines).toHaveLength(2);
  });

  it('says nothing of a step that ends in time, and passes its failure on', async () => {
    vi.useFakeTimers();
    const lines = captureStderr();
    await expect(step('quick', async () => 1, 1_000)).resolves.toBe(1);
    await expect(step('failing', () => Promise.reject(new Error('no model')), 1_000)).rejects.toThrow('no model');
    await vi.advanceTimersByTimeAsync(5_000);
    expect(lines).toEqual([]);
  });
});
