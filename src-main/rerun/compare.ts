// A block's output in the terms its log records, and the comparison of a re-execution's
// output with the recorded one. The reference library keeps no separate error: a failing
// block's stderr ends with "\n{Type}: {message}" (RLM-SPEC §6.7), so ours is rendered so too.
import type { BlockEndEvent, BlockRerun, ComparedOutput } from '../../src-shared/events.ts';
import type { ExecResult } from '../sandbox/types.ts';

export type ComparisonTerms = BlockRerun['terms'];

export function recordedOutput(end: BlockEndEvent | null, terms: ComparisonTerms): ComparedOutput {
  if (end === null) return { stdout: '', stderr: '', error: null, submitted: null };
  return { stdout: end.stdout, stderr: end.stderr, error: terms === 'native' ? end.error : null, submitted: end.submitted };
}

function newOutput(res: ExecResult, terms: ComparisonTerms): ComparedOutput {
  if (terms === 'native') return { stdout: res.stdout, stderr: res.stderr, error: res.error, submitted: res.submitted };
  const stderr = res.error ? `${res.stderr}\n${res.error.name}: ${res.error.message}` : res.stderr;
  return { stdout: res.stdout, stderr, error: null, submitted: res.submitted };
}

function sameOutput(a: ComparedOutput, b: ComparedOutput): boolean {
  return (
    a.stdout === b.stdout &&
    a.stderr === b.stderr &&
    a.submitted === b.submitted &&
    (a.error === null ? b.error === null : b.error !== null && a.error.name === b.error.name && a.error.message === b.error.message)
  );
}

export function compareBlock(end: BlockEndEvent | null, res: ExecResult, terms: ComparisonTerms): BlockRerun {
  const recorded = recordedOutput(end, terms);
  const fresh = newOutput(res, terms);
  return { terms, same: end !== null && sameOutput(recorded, fresh), recorded, new: fresh };
}
