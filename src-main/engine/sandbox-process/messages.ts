// The messages between a process that runs completions on Node's startup snapshot and the
// sandbox process that holds its REPLs (see sandbox-process.ts), and how an error crosses:
// both sides depend on this contract, not on each other.
import type { ReplLanguage } from '../../../src-shared/events.ts';
import type { CallSite, ReplOptions, SandboxValue } from '../../sandbox/types.ts';

/** A REPL's options as they cross: limits and values as they are, callable tools by name. */
export interface RemoteReplOptions extends Omit<ReplOptions, 'bridge' | 'tools'> {
  toolValues: Record<string, SandboxValue>;
  toolFunctions: string[];
  /** For Python's keyword arguments: each callable tool's parameter names, where they could be read. */
  toolParameters: Record<string, string[]>;
}

/**
 * What the parent asks a REPL to do, with its arguments (`addContextFile`: a file the sandbox
 * loaded itself; `addJsonContext`: a value parsed from JSON, sent as its text so that the
 * Python REPL keeps the numbers JavaScript's would lose, see sandbox/json-source.ts).
 */
export type ReplOp =
  | { op: 'addContext'; index: number; value: SandboxValue }
  | { op: 'addJsonContext'; index: number; json: string }
  | { op: 'addContextFile'; index: number; file: number }
  | { op: 'addHistory'; index: number; messages: SandboxValue }
  | { op: 'appendHistory'; messages: SandboxValue[] }
  | { op: 'execute'; code: string; site: CallSite }
  | { op: 'listVariables' };

export type SubcallName = 'llmQuery' | 'llmQueryBatched' | 'rlmQuery' | 'rlmQueryBatched';

export interface WireError {
  name: string;
  message: string;
}

export function toWire(err: unknown): WireError {
  return err instanceof Error ? { name: err.name || 'Error', message: err.message } : { name: 'Error', message: String(err) };
}

/** An error as thrown on the other side: its name and message (stacks stay where they were). */
export function fromWire(e: WireError): Error {
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

export type ToSandbox =
  | { t: 'open'; repl: number; language: ReplLanguage; options: RemoteReplOptions }
  | ({ t: 'op'; id: number; repl: number } & ReplOp)
  | { t: 'dispose'; repl: number }
  /**
   * Starts reading a context file, to be added by `addContextFile` (the parent read the same
   * file); `flat` for a Python REPL, which encodes the text to bytes (see ContextFileOptions).
   */
  | { t: 'load'; file: number; path: string; flat: boolean }
  /** Starts a Python interpreter ahead of the first Python REPL (once per process). */
  | { t: 'warm-python' }
  /** The answer to a sub-call or tool call the sandbox made. */
  | { t: 'answer'; id: number; value: SandboxValue | undefined }
  | { t: 'answer-error'; id: number; error: WireError };

export type FromSandbox =
  | { t: 'done'; id: number; value: unknown }
  | { t: 'failed'; id: number; error: WireError }
  | { t: 'subcall'; id: number; repl: number; name: SubcallName; prompt: string | string[]; model: string | undefined; site: CallSite }
  | { t: 'tool'; id: number; repl: number; name: string; args: SandboxValue[] }
  /** A running block submitted an answer (SubcallBridge.submitted); nothing is answered. */
  | { t: 'submitted'; repl: number; text: string; site: CallSite }
  /** Inside the OS sandbox, where the cache is read-only: a Pyodide snapshot made, for the parent to save at `path`. */
  | { t: 'snapshot'; path: string; image: Uint8Array };
