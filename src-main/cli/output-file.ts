// Output files the CLI creates: never an existing file overwritten, written as a stream.
import { createWriteStream, type WriteStream } from 'node:fs';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { UsageError } from './errors.ts';

export interface Sink {
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

/** Creates `path` for writing, refusing an existing one. */
export async function openExclusive(path: string): Promise<WriteStream> {
  const stream = createWriteStream(path, { flags: 'wx' });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EEXIST'
          ? new UsageError(`${path} already exists; refusing to overwrite it (choose another -o path)`)
          : new UsageError(`${path}: cannot create it: ${fileErrorText(err, true)}`),
      ),
    );
  });
  return stream;
}

/** Creates `path` (refusing an existing one) and writes to it with backpressure. */
export async function fileSink(path: string): Promise<Sink> {
  const stream = await openExclusive(path);
  return {
    write: (text) =>
      new Promise<void>((resolve, reject) => {
        if (stream.write(text)) resolve();
        else stream.once('drain', resolve).once('error', reject);
      }),
    close: () => new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve()))),
  };
}
