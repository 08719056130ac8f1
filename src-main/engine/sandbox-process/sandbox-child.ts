// The sandbox process: the REPLs of a parent that runs on Node's startup snapshot, where
// isolated-vm must not run (sandbox/isolate-host.ts). Started by `SandboxProcess`
// (sandbox-process.ts) with --no-node-snapshot; every sub-call and tool call of the code goes
// back to the parent, which owns the model clients, the tools and the log. Exits when the
// parent goes.
import { statSync } from 'node:fs';
import type { ReplLanguage } from '../../../src-shared/events.ts';
import type { CallSite, HostFunction, Repl, ReplOptions, SandboxValue, SubcallBridge } from '../../sandbox/types.ts';
import { readContextFile } from '../context-file.ts';
import { parseJsonContext } from '../../sandbox/json-source.ts';
import { OS_SANDBOXED_MARKER } from '../../sandbox/os-sandbox/node-sandbox.ts';
import { fromWire, toWire, type FromSandbox, type RemoteReplOptions, type ReplOp, type SubcallName, type ToSandbox } from './messages.ts';

function send(m: FromSandbox): void {
  // The parent may have let go already (this process is about to be killed; a disposed REPL's
  // block still answers): a failed send is dropped, never an uncaught EPIPE.
  if (process.connected) process.send?.(m, undefined, undefined, () => undefined);
}

/** Calls made to the parent on the code's behalf, waiting for their answers. */
const asked = new Map<number, { resolve: (v: SandboxValue | undefined) => void; reject: (e: Error) => void }>();
let nextAsk = 0;

function ask(m: DistributiveOmit<Extract<FromSandbox, { t: 'subcall' | 'tool' }>, 'id'>): Promise<SandboxValue | undefined> {
  const id = nextAsk++;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject });
    send({ ...m, id });
  });
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function bridgeFor(repl: number): SubcallBridge {
  const call = (name: SubcallName, prompt: string | string[], model: string | undefined, site: CallSite) =>
    ask({ t: 'subcall', repl, name, prompt, model, site });
  return {
    llmQuery: async (prompt, model, site) => String(await call('llmQuery', prompt, model, site)),
    rlmQuery: async (prompt, model, site) => String(await call('rlmQuery', prompt, model, site)),
    llmQueryBatched: async (prompts, model, site) => (await call('llmQueryBatched', prompts, model, site)) as string[],
    rlmQueryBatched: async (prompts, model, site) => (await call('rlmQueryBatched', prompts, model, site)) as string[],
    submitted: (text, site) => send({ t: 'submitted', repl, text, site }),
  };
}

async function toolsFor(repl: number, o: RemoteReplOptions): Promise<Record<string, HostFunction | SandboxValue>> {
  const tools: Record<string, HostFunction | SandboxValue> = { ...o.toolValues };
  for (const name of o.toolFunctions) tools[name] = (...args: SandboxValue[]) => ask({ t: 'tool', repl, name, args });
  if (Object.keys(o.toolParameters).length > 0) {
    // The stand-ins carry the parent's parameter names, where Python's keyword arguments go.
    const { withParameterNames } = await import('../../sandbox/python/tool-arguments.ts');
    for (const [name, params] of Object.entries(o.toolParameters)) {
      const call = tools[name];
      if (typeof call === 'function') withParameterNames(call, params);
    }
  }
  return tools;
}

async function createRepl(language: ReplLanguage, options: ReplOptions): Promise<Repl> {
  if (language === 'javascript') return (await import('../../sandbox/isolated-repl.ts')).createIsolatedRepl(options);
  await snapshotsToParent();
  return (await import('../../sandbox/python/pyodide-repl.ts')).createPythonRepl(options);
}

/** Inside the OS sandbox the cache folder is read-only: a snapshot made here is saved by the parent. */
async function snapshotsToParent(): Promise<void> {
  if (process.env[OS_SANDBOXED_MARKER] !== '1') return;
  (await import('../../sandbox/python/interpreter.ts')).setSnapshotSaver(async (path, image) => send({ t: 'snapshot', path, image }));
}

interface Held {
  repl: Promise<Repl>;
  /** Operations run one after another: an `addContextFile` waiting for its file must not be overtaken. */
  tail: Promise<unknown>;
}
const repls = new Map<number, Held>();
/** A context file read here (the parent read it too, for what it tells the model). */
interface ContextFile {
  path: string;
  /** Read as one flat string (for a Python REPL). */
  flat: boolean;
  /** Its size and modification time when it was read: a second read must find the same file. */
  stamp: string | null;
  /**
   * What was read, until a REPL takes it. The REPL keeps its own copy, so holding this one for
   * the whole session (a chat's every `:context` file) would double each context's memory; a
   * later REPL that needs the file (a chat's REPL rebuilt after a cancelled turn) reads it again.
   */
  value: Promise<SandboxValue> | null;
}
const files = new Map<number, ContextFile>();
let pythonStarted = false;

function stampOf(path: string): string | null {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

async function perform(repl: Repl, m: ReplOp): Promise<unknown> {
  switch (m.op) {
    case 'addContext':
      return repl.addContext(m.index, m.value);
    case 'addJsonContext':
      return repl.addContext(m.index, parseJsonContext(m.json));
    case 'addContextFile': {
      const file = files.get(m.file);
      if (!file) throw new Error(`context file #${m.file} was never loaded`);
      let value = file.value;
      if (!value) {
        // The parent's copy describes what the file held then: a changed file is not that context.
        if (stampOf(file.path) !== file.stamp)
          throw new Error(`the context file ${file.path} changed on disk since this session read it; start a new session to use it`);
        value = readContextFile(file.path, { flat: file.flat });
      }
      file.value = null;
      return repl.addContext(m.index, await value);
    }
    case 'addHistory':
      return repl.addHistory(m.index, m.messages);
    case 'appendHistory':
      return repl.appendHistory(m.messages);
    case 'execute':
      return repl.execute(m.code, m.site);
    case 'listVariables':
      return repl.listVariables();
  }
}

function onMessage(m: ToSandbox): void {
  switch (m.t) {
    case 'open': {
      const { toolValues: _v, toolFunctions: _f, toolParameters: _p, ...limits } = m.options;
      const repl = toolsFor(m.repl, m.options).then((tools) => createRepl(m.language, { ...limits, bridge: bridgeFor(m.repl), tools }));
      repl.catch(() => undefined); // reported by the first operation
      repls.set(m.repl, { repl, tail: Promise.resolve() });
      break;
    }
    case 'op': {
      const held = repls.get(m.repl);
      const run = async (): Promise<unknown> => {
        if (!held) throw new Error(`no REPL #${m.repl} in the sandbox process`);
        return perform(await held.repl, m);
      };
      const done = (held?.tail ?? Promise.resolve()).then(run, run);
      if (held) held.tail = done.catch(() => undefined);
      done.then(
        (value) => send({ t: 'done', id: m.id, value }),
        (err: unknown) => send({ t: 'failed', id: m.id, error: toWire(err) }),
      );
      break;
    }
    case 'dispose': {
      const held = repls.get(m.repl);
      repls.delete(m.repl);
      // At once, not after the operations queued: a block still running (its turn was cancelled
      // or cut by the deadline) is stopped, as an in-process REPL's dispose stops it.
      void held?.repl.then(
        (r) => r.dispose(),
        () => undefined,
      );
      break;
    }
    case 'load': {
      const stamp = stampOf(m.path);
      const value = readContextFile(m.path, { flat: m.flat });
      value.catch(() => undefined); // reported by the `addContextFile` that needs it
      files.set(m.file, { path: m.path, flat: m.flat, stamp, value });
      break;
    }
    case 'warm-python':
      // One interpreter started now (once per process), for the first Python REPL to take.
      if (!pythonStarted) {
        pythonStarted = true;
        // The files' reads need no isolated-vm: they start while its addon loads.
        void import('../../sandbox/python/pyodide-files.ts').then((files) => files.prefetchPyodide());
        void snapshotsToParent()
          .then(() => import('../../sandbox/python/pool.ts'))
          .then((python) => python.startPython());
      }
      break;
    case 'answer':
      asked.get(m.id)?.resolve(m.value);
      asked.delete(m.id);
      break;
    case 'answer-error':
      asked.get(m.id)?.reject(fromWire(m.error));
      asked.delete(m.id);
      break;
  }
}

process.on('message', (m) => onMessage(m as ToSandbox));
// Ctrl-C reaches the whole process group: the parent cancels the run and then lets this go.
process.on('SIGINT', () => undefined);
// The parent's end of the channel closed: it exited, or has no REPL left to ask for. The parent
// keeps the log and nothing here is left to save, so this process is killed rather than exited.
// process.exit() crashed it in isolated-vm's teardown now and then (SIGSEGV in 4 of 40 `run
// --repl python`; 9 ends in 10 with a block still running), and after disposing and settling
// it sometimes never returned (Node's platform shutdown waiting on a V8 compile thread that
// waited for a garbage collection): the inherited stderr then stayed open, and whoever read the
// command's output waited for ever.
process.on('disconnect', () => process.stderr.write('', () => process.kill(process.pid, 'SIGKILL')));
