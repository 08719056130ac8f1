// Worker-thread entry of the analyses that read many logs (analysis-jobs.ts): computes one
// job's reply off the host's event loop and posts it, or the refusal, back once.
import { parentPort, workerData } from 'node:worker_threads';
import { AnalysisJob, jobReply, type JobOutcome } from './analysis-jobs.ts';
import { CommandError } from './command-error.ts';

let outcome: JobOutcome;
try {
  outcome = { ok: true, reply: await jobReply(AnalysisJob.parse(workerData)) };
} catch (err) {
  outcome = { ok: false, code: err instanceof CommandError ? err.code : null, message: err instanceof Error ? err.message : String(err) };
}
parentPort?.postMessage(outcome);
