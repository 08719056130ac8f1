// The logs an export command names, with unusable paths as usage errors.
import { expandLogInputs, type LogInput, LogInputError } from '../export/log-inputs.ts';
import { UsageError } from './errors.ts';

export async function logInputs(paths: readonly string[]): Promise<LogInput[]> {
  try {
    return await expandLogInputs(paths, { requireLogs: true });
  } catch (err) {
    if (err instanceof LogInputError) throw new UsageError(err.message);
    throw err;
  }
}
