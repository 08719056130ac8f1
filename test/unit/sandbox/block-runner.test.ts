// The block skeleton every REPL runs its blocks through: its outcomes and the reset told to the
// next block, driven by a meter whose CPU time the test advances.
import { describe, expect, it } from 'vitest';
import { BlockRunner, disposedBlockResult, type BlockHooks } from '../../../src-main/sandbox/block-runner.ts';
import { RESET_NOTE } from '../../../src-main/sandbox/reset-error.ts';
import type { ReplResetReason } from '../../../src-shared/events.ts';

const LIMITS = { cpuLimitMs: 50, wallLimitMs: 60_000, outputCapChars: 1000 };
const SITE = { iteration: 1, block: 0 };

/** Hooks for an interpreter whose run is `run`; records what the runner asked of it. */
function hooks(run: () => Promise<string>, meter = { cpu: 0, stopped: null as ReplResetReason | null }) {
  const calls: string[] = [];
  const h: BlockHooks<string> = {
    site: SITE,
    started: performance.now(),
    meter: { cpuMs: () => meter.cpu, stop: (reason) => void (meter.stopped = reason) },
    run,
    finished: (block, outcome, timing, replReset) => ({
      ...timing,
      stdout: outcome,
      stderr: block.stderr.text(),
      error: null,
      variables: [],
      submitted: block.submitted,
      replReset,
    }),
    disposed: (block, timing) => disposedBlockResult(block, timing, 'RuntimeError', null),
    failed: () => 'crash',
    terms: () => ({ ...LIMITS, memoryLimitMb: 1, memoryError: 'MemoryError', crashError: 'SystemError', crashed: 'It' }),
    replace: async () => {
      calls.push('replace');
      return ['x'];
    },
  };
  return { h, calls, meter };
}

describe('BlockRunner', () => {
  it('returns a finished block as the hook words it, and tells a reset noted between blocks with the next block only', async () => {
    const runner = new BlockRunner(LIMITS, () => false);
    runner.noteReset({ reason: 'memory_limit', note: 'loading context_0 needed a new interpreter' });
    expect(runner.resetPending).toBe(true);
    const first = await runner.run(hooks(async () => 'out').h);
    expect(first.stdout).toBe('out');
    expect(first.stderr).toBe(`[Before this block, loading context_0 needed a new interpreter. ${RESET_NOTE}]\n`);
    expect(first.replReset).toBe('memory_limit');
    const second = await runner.run(hooks(async () => 'again').h);
    expect(second.stderr).toBe('');
    expect(second.replReset).toBeNull();
  });

  it('stops an interpreter past its CPU limit and replaces it, reporting the limit', async () => {
    const runner = new BlockRunner(LIMITS, () => false);
    const meter = { cpu: 0, stopped: null as ReplResetReason | null };
    const { h, calls } = hooks(
      () =>
        new Promise<string>((_resolve, reject) => {
          meter.cpu = 500; // the watchdog's next look sees it over the limit and stops it
          const poll = setInterval(() => {
            if (meter.stopped) {
              clearInterval(poll);
              reject(new Error('killed'));
            }
          }, 5);
        }),
      meter,
    );
    const result = await runner.run(h);
    expect(meter.stopped).toBe('cpu_limit');
    expect(calls).toEqual(['replace']);
    expect(result.replReset).toBe('cpu_limit');
    expect(result.error?.name).toBe('TimeoutError');
    expect(result.error?.message).toContain(RESET_NOTE);
    expect(result.variables).toEqual(['x']);
    expect(result.cpuMs).toBe(500);
  });

  it('when no fresh interpreter starts, tells the next block instead of throwing', async () => {
    const runner = new BlockRunner(LIMITS, () => false);
    const { h } = hooks(async () => Promise.reject(new Error('gone')));
    const result = await runner.run({
      ...h,
      replace: () => Promise.reject(new Error('no room')),
      replaceFailed: (err) => `loading the contexts failed (${(err as Error).message})`,
    });
    expect(result.replReset).toBe('crash');
    expect(result.error?.message).toBe(`It crashed (gone). ${RESET_NOTE}`);
    expect(result.variables).toEqual([]);
    const next = await runner.run(hooks(async () => 'ok').h);
    expect(next.stderr).toBe(`[Before this block, loading the contexts failed (no room). ${RESET_NOTE}]\n`);
    expect(next.replReset).toBe('crash');
  });

  it('reports a block whose REPL was disposed while it ran, without replacing anything', async () => {
    let disposed = false;
    const runner = new BlockRunner(LIMITS, () => disposed);
    const { h, calls } = hooks(async () => {
      disposed = true;
      throw new Error('disposed');
    });
    const result = await runner.run(h);
    expect(result.error).toEqual({ name: 'RuntimeError', message: 'The REPL was disposed while the block ran.' });
    expect(result.replReset).toBeNull();
    expect(calls).toEqual([]);
  });
});
