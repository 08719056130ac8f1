// Command-line start-up, side by side: how long `rlm-studio run` takes from spawn to its first
// model request, and to exit, for each way of starting the CLI (the TypeScript sources
// through Node's type stripping, and the bundle `bin/rlm-studio` runs), with and without
// V8's compile cache. Rounds alternate between the variants, so load from other work falls
// on all of them. The model is a tiny in-process HTTP server that timestamps each request
// and answers at once with a block that submits, so the figures are our start-up and
// nothing else. Yardsticks beside them: a script that only sends one request with Node's fetch,
// with and without Node's startup snapshot (isolated-vm needs a Node without it), and one that
// only makes one call through the OpenAI SDK (the bundle's own chunk of it): what any Node
// client of this endpoint pays before its first request, whatever the CLI does.
// Run: node --no-node-snapshot bench/cli-startup.ts [--rounds N] [--before DIR]
// (DIR: a checkout of an earlier commit with node_modules, e.g. `git archive COMMIT | tar -x`).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureCliBuilt } from '../src-main/cli/cli-build.ts';
import { log, median, r2, repl, root } from './lib.ts';

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

export interface StartupRow {
  variant: string;
  firstRequestMs: number;
  exitMs: number;
  /** User + system CPU of the whole process (from /usr/bin/time; null without it): steadier than wall time on a busy machine. */
  cpuMs: number | null;
  runs: number;
}

interface Variant {
  name: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
}

// The yardsticks read the endpoint from the same arguments the CLI gets and print what it would.
const PROBE_HEAD = `const url = process.argv[process.argv.indexOf('--base-url') + 1];
const messages = [{ role: 'system', content: 'You are a probe.' }, { role: 'user', content: 'q' }];
`;
const PROBE_TAIL = `process.stdout.write(JSON.stringify({ answer: 'ok' }) + '\\n');
`;
const FETCH_PROBE = `${PROBE_HEAD}const res = await fetch(url + '/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
  body: JSON.stringify({ model: 'm', messages }),
});
await res.json();
${PROBE_TAIL}`;
const sdkProbe = (chunk: string): string => `${PROBE_HEAD}const { OpenAI } = await import(${JSON.stringify(pathToFileURL(chunk).href)});
await new OpenAI({ baseURL: url, apiKey: 'x' }).chat.completions.create({ model: 'm', messages });
${PROBE_TAIL}`;

/** The bundle's chunk of the OpenAI SDK (hash-named), which the CLI imports before its first call. */
function sdkChunk(bundle: string): string {
  const dir = dirname(bundle);
  const name = readdirSync(dir).find((f) => f.endsWith('.mjs') && /\bOpenAI as default\b/.test(readFileSync(join(dir, f), 'utf8')));
  if (!name) throw new Error(`no chunk of ${dir} exports the OpenAI SDK`);
  return join(dir, name);
}

/**
 * Every way of starting the CLI that is compared; `cacheDir` holds the compile caches.
 * `before`: another checkout (with node_modules), run as its bin/rlm-studio ran it before the
 * bundle: its sources with the compile cache.
 */
async function variants(cacheDir: string, before: string | null): Promise<Variant[]> {
  const flags = ['--no-node-snapshot'];
  const cached = (name: string): NodeJS.ProcessEnv => ({ NODE_COMPILE_CACHE: join(cacheDir, name) });
  const bundle = await ensureCliBuilt();
  const fetchProbe = join(cacheDir, 'fetch-probe.mjs');
  const sdkProbePath = join(cacheDir, 'sdk-probe.mjs');
  writeFileSync(fetchProbe, FETCH_PROBE);
  writeFileSync(sdkProbePath, sdkProbe(sdkChunk(bundle)));
  return [
    { name: 'yardstick: fetch, Node snapshot', argv: [fetchProbe], env: cached('fetch') },
    { name: 'yardstick: fetch, no snapshot', argv: [...flags, fetchProbe], env: cached('fetch') },
    { name: 'yardstick: OpenAI SDK, no snapshot', argv: [...flags, sdkProbePath], env: cached('sdk') },
    ...(before
      ? [
          {
            name: `before: ${before} (sources + compile cache)`,
            argv: [...flags, join(before, 'src-main/cli/main.ts')],
            env: cached('before'),
          },
        ]
      : []),
    { name: 'sources, no compile cache', argv: [...flags, join(root, 'src-main/cli/main.ts')], env: { NODE_DISABLE_COMPILE_CACHE: '1' } },
    { name: 'sources + compile cache', argv: [...flags, join(root, 'src-main/cli/main.ts')], env: cached('sources') },
    { name: 'bundle, no compile cache', argv: [...flags, bundle], env: { NODE_DISABLE_COMPILE_CACHE: '1' } },
    { name: 'bundle + compile cache (bin/rlm-studio)', argv: [...flags, bundle], env: cached('bundle') },
  ];
}

/** Runs every variant `rounds` times (after one untimed run each), alternating. */
export async function measureCliStartup(rounds: number, before: string | null = null): Promise<StartupRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-cli-startup-'));
  let firstRequestAt = 0;
  const reply = JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [
      { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: repl('answer.content = "ok"; answer.ready = true;') } },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  const server = createServer((req, res) => {
    if (firstRequestAt === 0) firstRequestAt = performance.now();
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(reply));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const context = join(dir, 'context.txt');
  writeFileSync(context, 'The magic number is 42.\n');
  try {
    const vs = await variants(dir, before);
    const samples = new Map<string, { first: number[]; exit: number[]; cpu: number[] }>(
      vs.map((v) => [v.name, { first: [], exit: [], cpu: [] }]),
    );
    for (let round = 0; round <= rounds; round++) {
      for (const v of vs) {
        firstRequestAt = 0;
        const args = [
          'run',
          '--context',
          context,
          '--query',
          'q',
          '--base-url',
          url,
          '--model',
          'm',
          '--log-dir',
          join(dir, 'runs'),
          '--json',
        ];
        const command = [process.execPath, ...v.argv, ...args];
        const t0 = performance.now();
        const child = spawn(TIME ?? command[0]!, TIME ? ['-f', 'cpu %U %S', ...command] : command.slice(1), {
          env: { ...process.env, ...v.env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
        const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
        const exit = performance.now() - t0;
        if (code !== 0 || (JSON.parse(out) as { answer: string }).answer !== 'ok') throw new Error(`${v.name}: exit ${code}: ${out}${err}`);
        if (round === 0) continue; // fills the compile cache, as any second use would
        const s = samples.get(v.name)!;
        s.first.push(firstRequestAt - t0);
        s.exit.push(exit);
        const cpu = /cpu (\d+\.\d+) (\d+\.\d+)/.exec(err);
        if (cpu) s.cpu.push((Number(cpu[1]) + Number(cpu[2])) * 1000);
      }
    }
    return vs.map((v) => {
      const s = samples.get(v.name)!;
      return {
        variant: v.name,
        firstRequestMs: r2(median(s.first)),
        exitMs: r2(median(s.exit)),
        cpuMs: s.cpu.length ? r2(median(s.cpu)) : null,
        runs: s.first.length,
      };
    });
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '9' }, before: { type: 'string' } } });
  const rows = await measureCliStartup(Number(values.rounds), values.before ?? null);
  log('CLI start-up (median; spawn to the first model request, and to exit):');
  for (const r of rows)
    process.stdout.write(
      `${r.variant.padEnd(42)} first request ${r.firstRequestMs} ms  exit ${r.exitMs} ms  cpu ${r.cpuMs ?? '?'} ms  (${r.runs} runs)\n`,
    );
}
