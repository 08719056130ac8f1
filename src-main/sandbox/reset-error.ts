// The error a block ends with when its REPL had to be replaced, in the REPL language's terms.
import { assertNever, type BlockError, type ReplResetReason } from '../../src-shared/events.ts';
import { errorMessage } from './host-calls.ts';

export const RESET_NOTE =
  'The REPL was restarted: every variable you created is gone. context, context_0…N, history and the tools were re-loaded.';

export interface ResetTerms {
  cpuLimitMs: number;
  wallLimitMs: number;
  memoryLimitMb: number;
  /** The language's names: out of memory (`RangeError` / `MemoryError`), a crash (`Error` / `SystemError`). */
  memoryError: string;
  crashError: string;
  /** What crashed, in words ("The REPL", "The Python interpreter"). */
  crashed: string;
}

export function resetError(reason: ReplResetReason, t: ResetTerms, failure: unknown): BlockError {
  switch (reason) {
    case 'cpu_limit':
      return {
        name: 'TimeoutError',
        message: `The block used more than ${t.cpuLimitMs} ms of CPU time (an endless loop?) and was stopped. ${RESET_NOTE}`,
      };
    case 'wall_limit':
      return {
        name: 'TimeoutError',
        message: `The block ran for more than ${t.wallLimitMs} ms (not counting sub-calls) and was stopped. ${RESET_NOTE}`,
      };
    case 'memory_limit':
      return {
        name: t.memoryError,
        message: `The block ran out of memory (REPL limit ${t.memoryLimitMb} MB) and was stopped. ${RESET_NOTE}`,
      };
    case 'crash':
      return { name: t.crashError, message: `${t.crashed} crashed (${errorMessage(failure)}). ${RESET_NOTE}` };
    default:
      return assertNever(reason);
  }
}
