// A bench step that stops moving names itself on stderr, so a bench killed from outside (a
// test's time limit) says where it stood.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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

describe('bench main-thread watcher', () => {
  it('says from its own thread that the main thread is blocked, naming the step under way', async () => {
    const lib = new URL('../../../bench/lib.ts', import.meta.url).href;
    // The main thread blocks (as in a native call) for 5 s inside a step; the watcher is told
    // to speak after 1 s without a heartbeat.
    const script = `import { step, watchMainThread } from ${JSON.stringify(lib)};
      watchMainThread(1000);
      await step('disposing the interpreter', async () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000));
      process.exit(0);`;
    const { stderr } = await promisify(execFile)(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script]);
    expect(stderr).toMatch(/bench: the main thread has not run for \d+ s \(in disposing the interpreter\)/);
  });
});
