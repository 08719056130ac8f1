// One block's run, the same for every REPL: the block's state, the watchdog around the op, and
// what the block ends as — finished, cut short by the REPL's disposal, or the interpreter
// replaced (a limit, out of memory, a crash) — with a replacement between blocks told to the
// next block. Each REPL supplies its interpreter through hooks (`BlockHooks`).
import type { ReplResetReason } from '../../src-shared/events.ts';
import { BlockState } from './block-state.ts';
import { RESET_NOTE, resetError, type ResetTerms } from './reset-error.ts';
import type { CallSite, ExecResult, SubcallBridge } from './types.ts';
import { type CpuMeter, watchBlock } from './watchdog.ts';

/** How long a block took: wall time and the interpreter's CPU time. */
export interface BlockTiming {
  durationMs: number;
  cpuMs: number;
}

/** An interpreter replaced between blocks: why, and what the next block is told happened (`note`). */
export interface PendingReset {
  reason: ReplResetReason;
  note: string;
}

export interface BlockHooks<O> {
  site: CallSite;
  /** When the block's time starts (`performance.now()`). */
  started: number;
  /** The interpreter the watchdog reads and stops. */
  meter: CpuMeter;
  /** Runs the block; its outcome, or a throw when the interpreter failed. */
  run(): Promise<O>;
  /** A block the interpreter finished; null when the interpreter must be replaced all the same. */
  finished(block: BlockState, outcome: O, timing: BlockTiming, replReset: ReplResetReason | null): ExecResult | null;
  /** A block whose REPL was disposed while it ran. */
  disposed(block: BlockState, timing: BlockTiming): ExecResult;
  /** The run failed but the interpreter lives on: the block's result; null when it must be replaced. */
  survived?(failure: unknown, block: BlockState, timing: BlockTiming, replReset: ReplResetReason | null): Promise<ExecResult | null>;
  /**
   * Why the interpreter is replaced, unless a limit stopped it; keeps what the block printed, if
   * its outcome came back (`outcome` is null when the run threw `failure`).
   */
  failed(block: BlockState, outcome: O | null, failure: unknown, timing: BlockTiming): ReplResetReason;
  /** How the reset error words the limits. */
  terms(): ResetTerms;
  /** Discards the interpreter and starts a fresh one with every value loaded; the variables a result lists. */
  replace(): Promise<string[]>;
  /** A fresh interpreter failed to start: what the next block is told (without it, the failure is thrown). */
  replaceFailed?(err: unknown): string;
}

/** Runs a REPL's blocks and keeps the block running now, for the host hooks to write into. */
export class BlockRunner {
  readonly #outputCapChars: number;
  readonly #limits: { cpuLimitMs: number; wallLimitMs: number };
  readonly #disposed: () => boolean;
  #block: BlockState | null = null;
  #pending: PendingReset | null = null;

  constructor(limits: { cpuLimitMs: number; wallLimitMs: number; outputCapChars: number }, disposed: () => boolean) {
    this.#outputCapChars = limits.outputCapChars;
    this.#limits = { cpuLimitMs: limits.cpuLimitMs, wallLimitMs: limits.wallLimitMs };
    this.#disposed = disposed;
  }

  /** The block running now, if any. */
  get block(): BlockState | null {
    return this.#block;
  }

  /** Whether a replacement waits to be told to the next block. */
  get resetPending(): boolean {
    return this.#pending !== null;
  }

  /** The interpreter was replaced between blocks: the next block says so. */
  noteReset(reset: PendingReset): void {
    this.#pending = reset;
  }

  /** A block that cannot run (its code does not parse): `answer` gives its result, with any pending reset told. */
  refuse(site: CallSite, answer: (block: BlockState, replReset: ReplResetReason | null) => Promise<ExecResult>): Promise<ExecResult> {
    const { block, replReset } = this.#begin(site);
    return answer(block, replReset);
  }

  async run<O>(hooks: BlockHooks<O>): Promise<ExecResult> {
    const { block, replReset } = this.#begin(hooks.site);
    this.#block = block;
    const watchdog = watchBlock(hooks.meter, block, hooks.started, this.#limits);
    let outcome: O | null = null;
    let failure: unknown = null;
    let watched: ReturnType<typeof watchdog.stop>;
    try {
      outcome = await hooks.run();
    } catch (err) {
      failure = err;
    } finally {
      watched = watchdog.stop();
      block.active = false;
      this.#block = null;
    }
    const timing: BlockTiming = { durationMs: performance.now() - hooks.started, cpuMs: watched.cpuMs };
    if (outcome !== null) {
      const result = hooks.finished(block, outcome, timing, replReset);
      if (result) return result;
    }
    if (this.#disposed()) return hooks.disposed(block, timing);
    if (outcome === null && hooks.survived) {
      const result = await hooks.survived(failure, block, timing, replReset);
      if (result) return result;
    }

    const cause = hooks.failed(block, outcome, failure, timing);
    const reason = watched.killed ?? cause;
    const error = resetError(reason, hooks.terms(), failure);
    let variables: string[] = [];
    try {
      variables = await hooks.replace();
    } catch (err) {
      if (!hooks.replaceFailed) throw err;
      this.#pending = { reason, note: hooks.replaceFailed(err) };
    }
    return {
      ...timing,
      stdout: block.stdout.text(),
      stderr: block.stderr.text(),
      error,
      variables,
      submitted: block.submitted,
      replReset: reason,
    };
  }

  /** A new block's state, opening with the note of a reset since the last block. */
  #begin(site: CallSite): { block: BlockState; replReset: ReplResetReason | null } {
    const block = new BlockState(site, this.#outputCapChars);
    const pending = this.#pending;
    this.#pending = null;
    if (pending) block.stderr.append(`[Before this block, ${pending.note}. ${RESET_NOTE}]\n`, 0);
    return { block, replReset: pending ? pending.reason : null };
  }
}

/** A block whose REPL was disposed while it ran, in the REPL language's terms. */
export function disposedBlockResult(block: BlockState, timing: BlockTiming, errorName: string, submitted: string | null): ExecResult {
  return {
    ...timing,
    stdout: block.stdout.text(),
    stderr: block.stderr.text(),
    error: { name: errorName, message: 'The REPL was disposed while the block ran.' },
    variables: [],
    submitted,
    replReset: null,
  };
}

/** What a host call made while no block runs answers: a tool's JSON error, a sub-call's error text. */
export function idleHostCallAnswer(kind: unknown, errorName: string): string {
  return kind === 'tool'
    ? JSON.stringify({ err: { name: errorName, message: 'Host calls are only available while a block runs.' } })
    : 'Error: host calls are only available while a block runs';
}

/** Output the runtime sent (stream 1 is stderr), kept while its block runs. */
export function appendOutput(block: BlockState | null, stream: unknown, text: string, dropped: number): void {
  if (block?.active) (stream === 1 ? block.stderr : block.stdout).append(text, dropped);
}

/** The code submitted its answer: kept for the block's result and told to the bridge at once. */
export function submitAnswer(block: BlockState | null, text: string, bridge: SubcallBridge): void {
  if (!block?.active) return;
  block.submitted = text;
  bridge.submitted?.(text, block.site);
}
