// Helpers shared by the bench sections: mock-llm as its own process, scripted replies, and
// the rounding and median the reports use.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';

export const root = resolve(import.meta.dirname, '..');
export const MB = 1024 * 1024;
export const log = (s: string): void => void process.stderr.write(`bench: ${s}\n`);

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? Number.NaN;
export const r2 = (x: number): number => Math.round(x * 100) / 100;
export const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/** The steps under way, innermost last; the innermost is also kept where a watcher thread can read it. */
const steps: string[] = [];
const shared = { name: new Uint8Array(new SharedArrayBuffer(512)), beat: new Int32Array(new SharedArrayBuffer(4)) };

function publishStep(): void {
  const bytes = new TextEncoder().encode(steps.at(-1) ?? 'between steps').subarray(0, shared.name.length - 2);
  shared.name.set(bytes, 2);
  new DataView(shared.name.buffer).setUint16(0, bytes.length);
}

/**
 * Runs one step of a section. A step still running after `warnAfterMs` is named on stderr, and
 * again each time as long passes: a bench stopped from outside (a test's time limit) then says
 * where it stood, not only which section had last finished.
 */
export async function step<T>(what: string, work: () => Promise<T>, warnAfterMs = 30_000): Promise<T> {
  const t0 = performance.now();
  const timer = setInterval(() => log(`still in ${what} after ${Math.round((performance.now() - t0) / 1000)} s`), warnAfterMs);
  steps.push(what);
  publishStep();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    steps.splice(steps.lastIndexOf(what), 1);
    publishStep();
  }
}

/**
 * Watches the main thread from a thread of its own: a step's timer cannot fire while native
 * code (an isolate's disposal, say) blocks the main thread, so the watcher says so, naming
 * the step under way. Neither the heartbeat nor the watcher keeps the process alive.
 */
export function watchMainThread(quietMs = 30_000): void {
  publishStep();
  setInterval(() => Atomics.add(shared.beat, 0, 1), 1_000).unref();
  const watcher = new Worker(new URL('./main-thread-watcher.ts', import.meta.url), {
    workerData: { name: shared.name, beat: shared.beat, quietMs },
    // Not the parent's flags: `--input-type=module` or an inspector port would apply here too.
    execArgv: [],
  });
  watcher.unref();
}

export interface Mock {
  url: string;
  close(): Promise<void>;
}

/** mock-llm as its own process, as a real endpoint would be. */
export async function startMock(extra: string[]): Promise<Mock> {
  const child = spawn(process.execPath, ['--no-node-snapshot', join(root, 'src-main/cli/main.ts'), 'mock-llm', '--port', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((res, rej) => {
    child.once('exit', (code) => rej(new Error(`mock-llm exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (l) => {
      const m = /listening on (\S+)/.exec(l);
      if (m?.[1]) res(m[1]);
    });
  });
  return {
    url,
    close: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.removeAllListeners('exit');
        child.once('exit', () => res());
        child.kill('SIGTERM');
      }),
  };
}

/** A model reply holding one code block. */
export const repl = (code: string): string => `Running code.\n\`\`\`repl\n${code}\n\`\`\``;

export type ScriptRule = { match: Record<string, unknown>; reply: string };

/** Writes a mock-llm `--script` file into `dir`; unmatched requests go to the built-in scenarios. */
export function writeScript(dir: string, name: string, rules: ScriptRule[]): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ rules, fallback: 'scenarios' }));
  return path;
}

/**
 * The needle search as the reference's scripted model does it: 3 calls (inspect, regex search,
 * submit), in either REPL language. The Python replies are also what the reference library runs.
 */
export function needleRules(language: 'javascript' | 'python'): ScriptRule[] {
  const turns =
    language === 'javascript'
      ? [
          'print(typeof context, context.length);\nprint(context.slice(0, 200));',
          "const m = /magic number is (\\d+)/.exec(context);\nconst found = m ? m[1] : 'none';\nprint(found);",
          'answer.content = found;\nanswer.ready = true;',
        ]
      : [
          'print(type(context).__name__, len(context))\nprint(context[:200])',
          "import re\nm = re.search(r'magic number is (\\d+)', context)\nfound = m.group(1) if m else 'none'\nprint(found)",
          'answer["content"] = found\nanswer["ready"] = True',
        ];
  return turns.map((code, i) => ({ match: { kind: 'rlm', turn: i + 1 }, reply: repl(code) }));
}

/**
 * Holds the event loop until the returned function is called: while a Python interpreter
 * starts, isolated-vm may hold nothing, and a script with nothing else to wait on can end in
 * the middle of an `await` (exit code 13).
 */
export function holdProcess(): () => void {
  const timer = setInterval(() => undefined, 60_000);
  return () => clearInterval(timer);
}
