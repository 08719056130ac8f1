// One context-scale measurement in a fresh process (so peak RSS is this size's alone):
// write a context file of SIZE_MB, then time reading it, loading it into a REPL, and the
// first block. Prints one JSON line.
// Usage: node --no-node-snapshot bench/context-scale.ts SIZE_MB [string|array|file]
//   string  the file read as one string (fails above V8's longest string, ~512 Mi characters)
//   array   the file read here as an array of ~1 MB strings, which the REPL copies (the way a
//           1 GB context was measured before the context file reader could take one)
//   file    readContextFile, as the CLI and the workers read a context: above V8's longest string
//           an array of strings copied once, into memory the isolate shares
import { openSync, writeSync, closeSync, rmSync, createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filler, prng } from '../src-main/corpus/seeded-text.ts';
import { readContextFile } from '../src-main/engine/context-file.ts';
import { createIsolatedRepl } from '../src-main/sandbox/isolated-repl.ts';
import type { SandboxValue, SubcallBridge } from '../src-main/sandbox/types.ts';

const MB = 1024 * 1024;
const sizeMb = Number(process.argv[2] ?? '1');
const shape = (process.argv[3] ?? 'string') as 'string' | 'array' | 'file';
const bridge: SubcallBridge = {
  llmQuery: async () => '',
  llmQueryBatched: async (p) => p.map(() => ''),
  rlmQuery: async () => '',
  rlmQueryBatched: async (p) => p.map(() => ''),
};

const file = join(tmpdir(), `rlm-bench-ctx-${process.pid}.txt`);
// 1 MB of seeded text repeated, with a line number, so writing 1 GB stays quick.
const unit = filler(prng(7), MB - 16);
const fd = openSync(file, 'w');
for (let i = 0; i < sizeMb; i++) writeSync(fd, `${String(i).padStart(12, '0')}: ${unit}\n`.slice(0, MB));
closeSync(fd);
const bytes = sizeMb * MB;
const rssBefore = process.memoryUsage().rss;
const out: Record<string, unknown> = { sizeMb, shape, bytes };
try {
  const t0 = performance.now();
  let context: SandboxValue;
  if (shape === 'string') {
    context = await readFile(file, 'utf8');
  } else if (shape === 'file') {
    context = await readContextFile(file);
  } else {
    // An array of ~1 MB strings: the shape a context larger than V8's longest string must take.
    const parts: string[] = [];
    let rest = '';
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: MB })) {
      rest += chunk as string;
      const cut = rest.lastIndexOf('\n');
      if (cut >= 0) {
        parts.push(rest.slice(0, cut));
        rest = rest.slice(cut + 1);
      }
    }
    if (rest) parts.push(rest);
    context = parts;
  }
  const tRead = performance.now();
  const repl = await createIsolatedRepl({ bridge, memoryLimitMb: 256 });
  await repl.addContext(0, context);
  const tLoad = performance.now();
  const res = await repl.execute('print(typeof context, context.length)', { iteration: 1, block: 0 });
  const tFirst = performance.now();
  if (res.error) throw new Error(`${res.error.name}: ${res.error.message}`);
  repl.dispose();
  const peak = process.resourceUsage().maxRSS * 1024;
  Object.assign(out, {
    ok: true,
    readMs: tRead - t0,
    loadMs: tLoad - tRead,
    firstBlockMs: tFirst - tLoad,
    totalMs: tFirst - t0,
    peakRssBytes: peak,
    peakOverSize: peak / bytes,
    rssBeforeBytes: rssBefore,
    stdout: res.stdout.trim(),
  });
} catch (err) {
  Object.assign(out, {
    ok: false,
    error: err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? err.name}: ${err.message}` : String(err),
  });
} finally {
  rmSync(file, { force: true });
}
process.stdout.write(`${JSON.stringify(out)}\n`);
