// `rlm-studio bundle LOG -o session.html`: one self-contained HTML file, the read-only viewer
// with the log inside (as base64 of its gzip: src-shared/bundle-template.ts), that opens from
// a double-click with no network. The viewer is built once with the UI (bundle-template.html)
// and filled here by streaming the log through gzip, so a big log never sits in memory.
import { createReadStream, readFileSync, rmSync, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Command } from 'commander';
import { assertBase64, splitTemplate } from '../../../src-shared/bundle-template.ts';
import { AnyLogReader, type LogFormat, type LogItem } from '../../../src-shared/codecs/detect.ts';
import type { ReadProblem } from '../../../src-shared/codecs/lines.ts';
import { readLogBatches } from '../../logs/read-log.ts';
import { BUNDLE_TEMPLATE } from '../bundle-build.ts';
import { UsageError } from '../errors.ts';
import { openExclusive } from '../output-file.ts';
import { ensureRendererBuilt, rendererDist } from '../renderer-build.ts';
import { assertReadable, reportProblems, type Output, processOutput } from '../log-inputs.ts';

/** Base64 of a byte stream, in pieces that join into one base64 text (each a multiple of 3 bytes but the last). */
class Base64Encode extends Transform {
  private rest: Buffer = Buffer.alloc(0);
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const all = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    const whole = all.length - (all.length % 3);
    this.rest = Buffer.from(all.subarray(whole));
    done(null, whole > 0 ? all.subarray(0, whole).toString('base64') : undefined);
  }
  override _flush(done: TransformCallback): void {
    done(null, this.rest.length > 0 ? this.rest.toString('base64') : undefined);
  }
}

/** Reads the log until its format is known: a file that is no log at all is refused before anything is written. */
async function detectFormat(path: string): Promise<LogFormat> {
  const problems: ReadProblem[] = [];
  // Leaving the loop closes the file: only the first lines are read.
  for await (const batch of readLogBatches(path)) {
    for (const item of batch) {
      if (item.kind === 'format') return item.format;
      if (item.kind === 'problem') problems.push(item.problem);
    }
  }
  reportProblems(path, problems, { out: () => undefined, err: () => undefined }, 'nothing bundled');
  throw new UsageError(`${path}: not a log this app reads (neither a native log nor the reference library's JSONL); nothing bundled`);
}

/** Passes the log's bytes on unchanged and reads them as a log on the way, keeping what could not be read. */
class ProblemTap extends Transform {
  readonly problems: ReadProblem[] = [];
  private readonly reader = new AnyLogReader();
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.keep(this.reader.push(this.decoder.decode(chunk, { stream: true })));
    done(null, chunk);
  }
  override _flush(done: TransformCallback): void {
    this.keep([...this.reader.push(this.decoder.decode()), ...this.reader.end()]);
    done();
  }
  private keep(items: LogItem[]): void {
    for (const item of items) if (item.kind === 'problem') this.problems.push(item.problem);
  }
}

function write(stream: WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.write(text)) resolve();
    else stream.once('drain', resolve).once('error', reject);
  });
}

export interface BundleResult {
  format: LogFormat;
  logBytes: number;
  fileBytes: number;
}

export async function runBundle(input: string, options: { output: string }, io: Output = processOutput): Promise<BundleResult> {
  await assertReadable(input);
  const format = await detectFormat(input);
  ensureRendererBuilt(rendererDist);
  const { head, middle, tail } = splitTemplate(readFileSync(join(rendererDist, BUNDLE_TEMPLATE), 'utf8'));
  const name = Buffer.from(basename(input), 'utf8').toString('base64');
  assertBase64(name, 'the name');
  const out = await openExclusive(options.output);
  // Read as a log on its way into the copy: the bundle carries the log as it is, and its viewer skips what it cannot read.
  const tap = new ProblemTap();
  try {
    await write(out, head + name + middle);
    await pipeline(createReadStream(input), tap, createGzip(), new Base64Encode(), out, { end: false });
    await new Promise<void>((resolve, reject) => out.end(tail, (err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    // Ours, half written: never leave a file that looks like a bundle but is not one.
    out.destroy();
    rmSync(options.output, { force: true });
    throw err;
  }
  const result: BundleResult = { format, logBytes: (await stat(input)).size, fileBytes: (await stat(options.output)).size };
  io.out(
    `wrote ${options.output} (${mb(result.fileBytes)}: the viewer and the ${format} log of ${mb(result.logBytes)}, compressed); it opens in a browser, offline\n`,
  );
  reportProblems(input, tap.problems, io, 'bundled as it is: its viewer skips what cannot be read');
  return result;
}

function mb(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${(bytes / 1024).toFixed(0)} KB`;
}

export function registerBundle(program: Command): void {
  program
    .command('bundle')
    .description('Write one self-contained HTML file: a read-only viewer with the log inside (opens offline, by double-click).')
    .argument('<log>', 'a native log or a reference-library (RLMLogger) JSONL')
    .requiredOption('-o, --output <file>', 'the HTML file to write (never overwritten)')
    .action(async (input: string, options: { output: string }) => {
      await runBundle(input, options);
    });
}
