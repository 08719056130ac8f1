// The coverage worker's messages: the contract between the worker, the services that drive
// it and the store that keeps its report (none of them imports another).
import type { CoverageReport, CoverageRun, CoverageSource } from '../../src-shared/analysis/coverage.ts';

export type CoverageIn =
  { kind: 'start'; context: Blob } | { kind: 'sources'; list: CoverageSource[] } | { kind: 'finish'; runs: CoverageRun[] };

/** An unseen range with the start of its text, for the list of the largest. */
export interface UnseenPreview {
  start: number;
  end: number;
  preview: string;
}

export type CoverageOut = { kind: 'report'; report: CoverageReport; largestUnseen: UnseenPreview[] } | { kind: 'error'; message: string };
