// The REPL the model's code runs in, behind one interface (isolated-vm JavaScript today).
import type { BlockError, ReplResetReason } from '../../src-shared/events.ts';
import type { ReplTexts } from '../../src-shared/repl-texts.ts';

/** A JSON-like value that can be copied into the sandbox. */
export type SandboxValue = string | number | boolean | null | SandboxValue[] | { [key: string]: SandboxValue };

/** A host function a user (or the engine) exposes to the code. Arguments arrive copied. */
export type HostFunction = (...args: SandboxValue[]) => SandboxValue | undefined | Promise<SandboxValue | undefined>;

/**
 * Host side of the model-facing functions. Each is awaited by the host while the isolate
 * blocks, so the code sees them as synchronous. They must never reject: failures come back
 * as `Error: …` strings.
 */
export interface SubcallBridge {
  llmQuery(prompt: string, model: string | undefined, site: CallSite): Promise<string>;
  llmQueryBatched(prompts: string[], model: string | undefined, site: CallSite): Promise<string[]>;
  rlmQuery(prompt: string, model: string | undefined, site: CallSite): Promise<string>;
  rlmQueryBatched(prompts: string[], model: string | undefined, site: CallSite): Promise<string[]>;
  /**
   * The code submitted an answer while its block still runs (the block's result carries it
   * too): a block cut short after this (a deadline) still has its answer.
   */
  submitted?(text: string, site: CallSite): void;
}

/** Which block of which iteration made a call; set by the engine before each execute. */
export interface CallSite {
  iteration: number;
  block: number;
}

/** How paper-era FINAL_VAR behaves: its texts come from the run's prompt pack. */
export interface FinalVarRules {
  /** Returned for a name that is not a variable: `{name}`, and `{available}` in the REPL's list notation. */
  notFound: string;
  /** The same when there are no variables at all: `{name}`. */
  noVariables: string;
  /**
   * The reference's REPL: a block's own assignments become variables only when the block ends,
   * so FINAL_VAR inside a block finds only those of earlier blocks (Python REPLs).
   */
  blockStart: boolean;
}

export interface ReplOptions {
  bridge: SubcallBridge;
  /** Callable tools are injected as functions; anything else as a copied value. */
  tools?: Record<string, HostFunction | SandboxValue>;
  /** Isolate heap limit in MB. Grown automatically to fit the contexts. */
  memoryLimitMb?: number;
  /** CPU time allowed per block (excludes time blocked in sub-calls). */
  cpuLimitMs?: number;
  /** Wall time allowed per block, not counting time blocked in sub-calls. */
  wallLimitMs?: number;
  /** Characters of stdout / stderr kept per block before the rest is dropped. */
  outputCapChars?: number;
  /** Paper-era models: also expose FINAL(value) and FINAL_VAR(name) in the REPL, by these rules. */
  finalVar?: FinalVarRules;
  /** What the REPL itself returns to the code (SHOW_VARS, an empty prompt, a failed call): the run's prompt pack's; ours without one. */
  texts?: ReplTexts;
  /**
   * A run with compaction: `history` is an empty list from the start, made before the contexts
   * are loaded, as the reference's REPL makes it (Python; it shows in the order variables are listed).
   */
  compaction?: boolean;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  error: BlockError | null;
  durationMs: number;
  cpuMs: number;
  /** `answer.content` captured when `answer.ready` became truthy in this block, else null. */
  submitted: string | null;
  /** Simple variables (string/number/boolean/array/plain object) not starting with `_`. */
  variables: string[];
  /**
   * Every variable after the block, for the reference format's `locals`: null, booleans,
   * finite numbers and strings of up to 200 characters as themselves (Python: also small
   * containers, modules and functions as the reference's logger writes them), anything else
   * as a rendering of at most 200 characters ending in "…". Absent when the block did not
   * run to its end in the REPL (a reset, a disposal).
   */
  locals?: Record<string, LocalValue>;
  /** Non-null when the isolate had to be discarded; a fresh one with the contexts is in place. */
  replReset: ReplResetReason | null;
}

/** A variable as a block's `locals` records it (JSON). */
export type LocalValue = SandboxValue;

export interface VariableInfo {
  name: string;
  type: string;
  /** Length for strings/arrays, key count for objects, else null. */
  size: number | null;
  /** A bounded preview, as text. */
  preview: string;
}

export interface Repl {
  /** Adds `context_{index}`; index 0 also becomes `context`. */
  addContext(index: number, value: SandboxValue): Promise<void>;
  /** Adds `history_{index}`; index 0 also becomes `history`. */
  addHistory(index: number, messages: SandboxValue): Promise<void>;
  /**
   * Appends messages to `history` under compaction: the run's whole history, created on the first
   * call and extended in place after (as the reference's compaction entries are), so each call
   * copies only what is new. Code that rebinds `history` gets this list back after its block.
   */
  appendHistory(messages: SandboxValue[]): Promise<void>;
  /** Runs one block. Never throws for errors in the code; they come back in the result. */
  execute(code: string, site: CallSite): Promise<ExecResult>;
  /** Inspects variables without changing them. */
  listVariables(): Promise<VariableInfo[]>;
  dispose(): void;
}
