// What a block.end event records of a block's result: one rendering for live runs and for
// re-executions, so both logs read the same.
import type { BlockEndEvent } from '../../src-shared/events.ts';
import type { ExecResult } from '../sandbox/types.ts';

const ms = (x: number): number => Math.round(x * 1000) / 1000;

export function blockEndFields(
  res: ExecResult,
): Pick<BlockEndEvent, 'stdout' | 'stderr' | 'error' | 'durationMs' | 'cpuMs' | 'submitted' | 'variables' | 'replReset' | 'locals'> {
  return {
    stdout: res.stdout,
    stderr: res.stderr,
    error: res.error,
    durationMs: ms(res.durationMs),
    cpuMs: ms(res.cpuMs),
    submitted: res.submitted,
    variables: res.variables,
    replReset: res.replReset,
    ...(res.locals ? { locals: res.locals } : {}),
  };
}
