// A conversation: one root completion, or several sharing one REPL (multi-turn turns). Owns
// the REPLs of its runs and the ids of everything in it. (Not the host's session, which is a
// log the app shows, nor the session a log records: see src-main/host/session-state.ts.)
import type { LiveReplySink } from '../../src-shared/live-reply.ts';
import type { EventSink, ReplLanguage, RunId } from '../../src-shared/events.ts';
import { asCallId, asRunId } from '../../src-shared/events.ts';
import { contextWindowFor } from '../lm/context-windows.ts';
import type { HostFunction, Repl, ReplOptions, SandboxValue, SubcallBridge } from '../sandbox/types.ts';
import type { RlmConfig, ToolSpec } from './config.ts';
import { RLM_DEFAULTS, limitsOf, validateConfig } from './config.ts';
import { runDirect } from './direct-run.ts';
import { defaultPack } from '../lm/our-prompt-packs.ts';
import { sharedSandboxProcess } from './sandbox-process/sandbox-process.ts';
import { canHostIsolates } from '../sandbox/isolate-host.ts';
import { inProcessLayers } from '../sandbox/layers.ts';
import { cpythonProtectionLayers } from '../sandbox/os-sandbox/layers.ts';
import { environmentIsScrubbed } from '../sandbox/sandbox-env.ts';
import { forwardingBridge, RlmRun, type RunOutcome, type ConversationServices } from './run.ts';
import { UsageLedger } from './usage-ledger.ts';
import { finalVarRules, replTexts } from './prompts.ts';

export interface ReplFactory {
  (options: ReplOptions): Promise<Repl>;
  /** What protects the code in these REPLs (run.start's `sandbox`); unknown when absent. */
  layers?: readonly string[];
}

export interface ConversationOptions {
  sink: EventSink;
  /** Keep one REPL across completions: `context_N` and `history_N` accumulate. */
  persistent?: boolean;
  /** Replaces the REPL `RlmConfig.repl` names (tests, other backends). */
  replFactory?: ReplFactory;
  /** Where the turns' replies go while they stream (never logged). */
  live?: LiveReplySink;
}

/**
 * The REPL of a language, imported on first use. Python: Pyodide's loader is large, and a
 * JavaScript conversation should not pay for it. JavaScript: isolated-vm and the code parser
 * load while the first model call is in flight (the REPL is set up then), not before it is
 * sent, which a whole-process `run` would wait for.
 */
export function replFactoryFor(language: ReplLanguage, cpython?: RlmConfig['cpython']): ReplFactory {
  // CPython runs in its own sandboxed process, from any process: no isolate here.
  if (language === 'python' && cpython) {
    const create: ReplFactory = async (options) =>
      (await import('../sandbox/python/cpython-repl.ts')).createCPythonRepl({ ...options, ...cpython });
    create.layers = cpythonProtectionLayers();
    return create;
  }
  // A process on Node's startup snapshot (the command line's `run`) keeps its REPLs in a child,
  // and so does one whose environment holds the user's keys (see keepReplsOutOfProcess).
  if (replsOutOfProcess()) return sharedSandboxProcess().replFactory(language);
  const create: ReplFactory =
    language === 'javascript'
      ? async (options) => (await import('../sandbox/isolated-repl.ts')).createIsolatedRepl(options)
      : async (options) => (await import('../sandbox/python/pyodide-repl.ts')).createPythonRepl(options);
  create.layers = inProcessLayers();
  return create;
}

let outOfProcess = false;

/**
 * From now on this process keeps its REPLs in the sandbox process (whose environment is
 * scrubbed) unless its own environment is scrubbed already: for commands started from the
 * user's shell that run model code and hold API keys in their environment (`eval`, `worker`,
 * `rerun`, `counterfactual`). A host's session worker is started scrubbed and keeps its REPLs.
 */
export function keepReplsOutOfProcess(): void {
  outOfProcess = true;
}

/** Whether this process's REPLs live in the sandbox process (replFactoryFor). */
export function replsOutOfProcess(): boolean {
  return !canHostIsolates() || (outOfProcess && !environmentIsScrubbed());
}

export interface CompletionOptions {
  signal?: AbortSignal;
}

function toolValues(tools: Record<string, ToolSpec>): Record<string, HostFunction | SandboxValue> {
  return Object.fromEntries(Object.entries(tools).map(([k, t]) => [k, t.value]));
}

/** A REPL that forwards to one still being set up; using it starts the setup. */
function deferredRepl(ready: Promise<Repl>, begin: () => void): Repl {
  const repl = (): Promise<Repl> => {
    begin();
    return ready;
  };
  return {
    addContext: async (index, value) => (await repl()).addContext(index, value),
    addHistory: async (index, messages) => (await repl()).addHistory(index, messages),
    appendHistory: async (messages) => (await repl()).appendHistory(messages),
    execute: async (code, site) => (await repl()).execute(code, site),
    listVariables: async () => (await repl()).listVariables(),
    dispose: () =>
      void ready.then(
        (r) => r.dispose(),
        () => undefined,
      ),
  };
}

export class RlmConversation {
  private readonly config: RlmConfig;
  private readonly opts: ConversationOptions;
  private readonly services: ConversationServices;
  private readonly replFactory: ReplFactory;
  private repl: Repl | null = null;
  private current: RlmRun | null = null;
  private turns = 0;
  private histories = 0;
  /**
   * Persistent conversations: every turn's context and history, so a REPL that had to be replaced
   * (it is dropped after a turn that left a block running: a cancel or the deadline mid-block)
   * gets all of them again.
   */
  private readonly pastContexts: SandboxValue[] = [];
  private readonly pastHistories: SandboxValue[] = [];
  private runCounter = 0;
  private callCounter = 0;
  private batchCounter = 0;
  private closed = false;
  /** The REPL was replaced after the last turn, losing the model's variables: the next turn is told. */
  private replLost = false;

  constructor(config: RlmConfig, opts: ConversationOptions) {
    validateConfig(config);
    this.config = config;
    this.opts = opts;
    // Child runs (`rlm_query`) get their REPLs from the same factory, so the same language.
    this.replFactory = opts.replFactory ?? replFactoryFor(config.repl ?? 'javascript', config.cpython);
    this.services = {
      config,
      sink: opts.sink,
      newRunId: () => asRunId(`run-${this.runCounter++}`),
      newCallId: () => asCallId(`call-${this.callCounter++}`),
      newBatchId: () => `batch-${this.batchCounter++}`,
      createChildRepl: async (context, tools, bridge) => {
        const repl = await this.replFactory(this.replOptions(tools, bridge, false));
        await repl.addContext(0, context);
        return repl;
      },
      contextWindow: config.contextWindow ?? contextWindowFor(config.model),
      ...(opts.live ? { live: opts.live } : {}),
      ...(this.replFactory.layers ? { sandboxLayers: this.replFactory.layers } : {}),
    };
  }

  private replOptions(tools: Record<string, ToolSpec>, bridge: SubcallBridge, compaction: boolean): ReplOptions {
    const s = { ...RLM_DEFAULTS.sandbox, ...this.config.sandbox };
    const pack = this.config.prompts ?? defaultPack(this.config.repl ?? 'javascript');
    return {
      bridge,
      tools: toolValues(tools),
      memoryLimitMb: s.memoryLimitMb,
      cpuLimitMs: s.blockCpuMs,
      wallLimitMs: s.blockWallMs,
      ...(this.config.finalPatterns ? { finalVar: finalVarRules(pack) } : {}),
      texts: replTexts(pack),
      compaction,
    };
  }

  /** The root run's REPL of the completion in progress (or the persistent one). */
  get activeRepl(): Repl | null {
    return this.repl;
  }

  /** Answers `query` over `context`; in a persistent conversation the REPL carries over. */
  async completion(context: SandboxValue, query: string | null, opts: CompletionOptions = {}): Promise<RunOutcome> {
    if (this.closed) throw new Error('conversation is closed');
    if (this.current !== null) throw new Error('a completion is already running in this conversation');
    const persistent = this.opts.persistent ?? false;
    const turn = this.turns++;
    const runId: RunId = this.services.newRunId();
    const tools = this.config.tools ?? {};
    const limits = limitsOf(this.config);
    if (limits.maxDepth === 0) {
      return runDirect({
        client: this.config.client,
        sink: this.opts.sink,
        runId,
        turn,
        model: this.config.model,
        subModel: this.config.subModel ?? null,
        query,
        context,
        limits,
        repl: this.config.repl ?? 'javascript',
        signal: opts.signal,
        pack: this.config.prompts ?? defaultPack(this.config.repl ?? 'javascript'),
      });
    }
    let run: RlmRun | null = null;
    const replLost = persistent && this.replLost;
    this.replLost = false;
    const contextIndex = persistent ? turn : 0;
    if (persistent) this.pastContexts[contextIndex] = context;
    // The REPL (an isolate, the context copied in: ~50 ms for 40 MB) is set up while the first
    // model call is in flight, which needs only the context's description; the first block
    // waits for it. If it fails, the run stops with an error and so does this call, as before.
    let setupError: { error: unknown } | null = null;
    // Started once the first call has gone out: copying a large context in blocks this thread
    // (~30 ms for 40 MB) and would otherwise delay sending it. The same for a REPL in the
    // sandbox process, whose start would compete with this one's for the CPU: started with the
    // run, it took a whole run 3-9% longer on two loaded cores (see docs/performance.md).
    let begin!: () => void;
    const go = new Promise<void>((resolve) => (begin = resolve));
    const setup = go.then(async (): Promise<Repl> => {
      if (this.repl === null || !persistent) {
        const repl = await this.replFactory(
          this.replOptions(
            tools,
            forwardingBridge(() => this.current),
            this.config.compaction ?? false,
          ),
        );
        this.repl = repl;
        // A persistent conversation's fresh REPL: the earlier turns' contexts and histories first.
        for (let i = 0; persistent && i < contextIndex; i++) await repl.addContext(i, this.pastContexts[i] ?? '');
        for (let i = 0; persistent && i < this.histories; i++) await repl.addHistory(i, this.pastHistories[i] ?? []);
      }
      await this.repl.addContext(contextIndex, context);
      return this.repl;
    });
    const ready = setup.catch((error: unknown) => {
      setupError = { error };
      run?.failSetup(error);
      throw error;
    });
    ready.catch(() => undefined); // awaited by the run's first block, or reported below
    try {
      run = new RlmRun({
        services: this.services,
        runId,
        parentRunId: null,
        spawnedBy: null,
        depth: 0,
        turn,
        model: this.config.model,
        query,
        context,
        repl: deferredRepl(ready, begin),
        tools,
        ledger: new UsageLedger(),
        budgetUsd: limits.maxBudgetUsd,
        deadline: limits.maxTimeoutMs === null ? null : performance.now() + limits.maxTimeoutMs,
        signal: opts.signal,
        contextCount: contextIndex + 1,
        historyCount: persistent ? this.histories : 0,
        compaction: this.config.compaction ?? false,
        onModelCallSent: begin,
        replLost,
      });
      this.current = run;
      const outcome = await run.run();
      begin();
      await ready.catch(() => undefined);
      if (setupError !== null) throw (setupError as { error: unknown }).error;
      // A block still running there would hold up the history below: the REPL goes first.
      if (persistent && run.leftBlockRunning) this.dropRepl();
      if (persistent && outcome.stopReason !== 'cancelled') {
        const history = outcome.messages as unknown as SandboxValue;
        this.pastHistories[this.histories] = history;
        // A REPL made later gets every history from pastHistories.
        if (this.repl) await this.repl.addHistory(this.histories, history);
        this.histories++;
      }
      return outcome;
    } finally {
      // A run can end before its REPL is set up (a failed first call): dispose it, not leak it.
      begin();
      await ready.catch(() => undefined);
      this.current = null;
      // A cancel between blocks keeps the REPL, as the reference keeps its own; one that left a
      // block running replaces it (the block cannot be stopped otherwise).
      if (!persistent || this.closed) {
        this.repl?.dispose();
        this.repl = null;
      } else if (run?.leftBlockRunning) this.dropRepl();
    }
  }

  /** Disposes the persistent REPL mid-conversation: the next turn starts a fresh one and is told. */
  private dropRepl(): void {
    if (this.repl === null) return;
    this.repl.dispose();
    this.repl = null;
    this.replLost = true;
  }

  close(): void {
    this.closed = true;
    this.repl?.dispose();
    this.repl = null;
  }
}
