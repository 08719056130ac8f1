// Loads `--example LOG` files (either log format) and renders each as a worked example,
// sharing one character budget between them.
import { resolve } from 'node:path';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { reduceEvents } from '../../src-shared/trajectory/index.ts';
import { renderWorkedExample, type WorkedExample, WorkedExampleError } from '../engine/worked-example.ts';
import { readLogFile } from './read-log.ts';

/**
 * Each log's rendering gets an equal share of `budget` (total characters). Throws a
 * `WorkedExampleError` naming the file for one that cannot be read, is not a log, has no
 * root iteration with code, or does not fit its share.
 */
export async function loadWorkedExamples(paths: string[], budget: number): Promise<WorkedExample[]> {
  if (!Number.isInteger(budget) || budget < 1)
    throw new WorkedExampleError(`the example budget must be a positive whole number of characters, got ${budget}`);
  const share = Math.floor(budget / Math.max(1, paths.length));
  const out: WorkedExample[] = [];
  for (const path of paths) {
    let contents;
    try {
      contents = await readLogFile(path);
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === 'EISDIR' ? 'it is a folder; name a log file' : fileErrorText(err);
      throw new WorkedExampleError(`cannot read example log ${path}: ${why}`);
    }
    if (contents.format === null || contents.events.length === 0) {
      const why = contents.problems[0]?.message ?? 'no events in it';
      throw new WorkedExampleError(`example ${path} is not a readable log: ${why}`);
    }
    const state = reduceEvents(contents.events, contents.header);
    const note = `; each of the ${paths.length} examples gets ${share} of the total ${budget}`;
    try {
      // The absolute path is what the log records: the app opens it from there later.
      out.push(renderWorkedExample(state, resolve(path), share));
    } catch (err) {
      if (err instanceof WorkedExampleError && share < budget) throw new WorkedExampleError(`${err.message}${note}`);
      throw err;
    }
  }
  return out;
}
