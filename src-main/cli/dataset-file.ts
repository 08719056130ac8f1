// `eval-gen`'s dataset file: made like every output file of the CLI (output-file.ts), whole or
// not at all, so a generation that fails or is stopped leaves no file in the way of a retry.
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { DatasetError, generateDataset, type GenerateOptions } from '../eval/dataset.ts';
import type { EvalTask } from '../eval/tasks/types.ts';
import { UsageError } from './errors.ts';
import { writeWhole } from './output-file.ts';

/** Writes the generated dataset to `o.out` (its folder made if missing); bad paths are usage errors. */
export async function writeDataset(o: GenerateOptions, onTask?: (t: EvalTask) => void): Promise<EvalTask[]> {
  const dir = dirname(resolve(o.out));
  await mkdir(dir, { recursive: true }).catch((err: unknown) => {
    // EEXIST here: a name in the folder's path is a file, not a folder.
    const why = (err as NodeJS.ErrnoException).code === 'EEXIST' ? 'a folder in its path is a file' : fileErrorText(err, true);
    throw new UsageError(`${o.out}: cannot create its folder: ${why}`);
  });
  try {
    return await writeWhole(o.out, (sink) => generateDataset(o, (line) => sink.write(line), onTask));
  } catch (err) {
    if (err instanceof DatasetError) throw new UsageError(err.message);
    throw err;
  }
}
