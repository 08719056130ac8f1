// Output files the CLI creates: never an existing file overwritten, written as a stream, and a
// failed write leaves nothing behind.
import { createWriteStream, type WriteStream } from 'node:fs';
import { access, rename, rm } from 'node:fs/promises';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { UsageError } from './errors.ts';
import type { Output } from './log-inputs.ts';

export interface Sink {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates `path` for writing, refusing an existing one. With `partialOf`, `path` is that
 * file's partial copy, and the messages name the file the user asked for.
 */
export async function openExclusive(path: string, partialOf?: string): Promise<WriteStream> {
  const stream = createWriteStream(path, { flags: 'wx' });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') reject(new UsageError(`${partialOf ?? path}: cannot create it: ${fileErrorText(err, true)}`));
      else if (partialOf === undefined) reject(alreadyThere(path));
      else
        reject(
          new UsageError(
            `${path} already exists, perhaps left by a write of ${partialOf} that was stopped; remove it, or choose another -o path`,
          ),
        );
    });
  });
  return stream;
}

/** A file opened by `openExclusive`, written with backpressure. */
function sinkOf(stream: WriteStream): Sink {
  return {
    write: (text) =>
      new Promise<void>((resolve, reject) => {
        if (stream.write(text)) resolve();
        else stream.once('drain', resolve).once('error', reject);
      }),
    close: () => new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve()))),
  };
}

function alreadyThere(path: string): UsageError {
  return new UsageError(`${path} already exists; refusing to overwrite it (choose another -o path)`);
}

/** Refuses `path` when something is there already. */
export async function assertAbsent(path: string): Promise<void> {
  const exists = await access(path).then(
    () => true,
    () => false,
  );
  if (exists) throw alreadyThere(path);
}

/**
 * Creates `path` with what `write` writes, whole or not at all: written to `path.partial`,
 * removed if `write` or the file fails, renamed to `path` at the end. A file that appears at
 * `path` meanwhile is left as it is (checked before and again just before the rename).
 */
export async function writeWhole<T>(path: string, write: (sink: Sink) => Promise<T>): Promise<T> {
  await assertAbsent(path);
  const partial = `${path}.partial`;
  const sink = sinkOf(await openExclusive(partial, path));
  try {
    const result = await write(sink);
    await sink.close();
    await assertAbsent(path);
    await rename(partial, path);
    return result;
  } catch (err) {
    await sink.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw err;
  }
}

/** Standard output as a sink (a closed pipe ends the process quietly: see main.ts). */
function stdoutSink(io: Output): Sink {
  return { write: async (text) => io.out(text), close: async () => undefined };
}

/**
 * Runs `write` into the file `path` (whole or not at all), or into stdout when `path` is
 * absent; `--json` reports go to stdout too, so the two are refused together.
 */
export async function writeOutput<T>(
  path: string | undefined,
  json: boolean | undefined,
  io: Output,
  write: (sink: Sink) => Promise<T>,
): Promise<T> {
  if (path !== undefined) return writeWhole(path, write);
  if (json) throw new UsageError('--json prints its report on stdout, where the output goes without -o; give -o FILE');
  return write(stdoutSink(io));
}
