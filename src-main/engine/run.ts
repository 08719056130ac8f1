// One RLM run (the root of a completion, or a child spawned by `rlm_query`): the turn loop,
// its sub-calls and its limits. Everything it does is reported as events to the sink.
import type {
  CallId,
  ChatMessage,
  EventSink,
  LimitName,
  ModelCallPurpose,
  ReplLanguage,
  ReplyReasoning,
  RunId,
  SpawnPlace,
  StopReason,
  SubcallCounterfactual,
  SubcallKind,
  Usage,
} from '../../src-shared/events.ts';
import { wasCut } from '../../src-shared/events.ts';
import type { LiveReplySink } from '../../src-shared/live-reply.ts';
import { lengthRefusalOf, overflowMessage, type LengthRefusal } from '../lm/length-refusal.ts';
import type { UsageByModel } from '../../src-shared/trajectory/by-model.ts';
import type { CompletionResult, LmClient } from '../lm/types.ts';
import { requestFieldsOf } from '../lm/request-fields.ts';
import type { CallSite, ExecResult, Repl, SandboxValue, SubcallBridge } from '../sandbox/types.ts';
import { blockEndFields } from './block-events.ts';
import { findFinalSignal, findReplBlocks, hasUnclosedReplFence } from './code-blocks.ts';
import { replyParts } from './reasoning-split.ts';
import { subLmBudgets, type SubLmBudgets } from './sub-lm-budgets.ts';
import { mapBounded } from './concurrency.ts';
import { describeContext } from './context-meta.ts';
import type { RlmConfig, ToolSpec } from './config.ts';
import { RLM_DEFAULTS, limitsOf } from './config.ts';
import type { GateRun } from './gates.ts';
import { setLongTimeout } from './long-timeout.ts';
import {
  buildMetadataMessage,
  buildReplOutputMessage,
  buildSystemPrompt,
  buildTurnPrompt,
  compactionNote,
  defaultToolDescription,
  fillSystemPrompt,
} from './prompts.ts';
import { defaultPack } from '../lm/our-prompt-packs.ts';
import { fill, packIdentity, type PromptPack } from '../lm/prompt-pack.ts';
import { estimateTokens } from '../../src-shared/tokens.ts';
import { roundUsd, UsageLedger } from './usage-ledger.ts';
import { type WorkedExample, workedExamplesSection } from './worked-example.ts';

export interface RunOutcome {
  runId: RunId;
  /** The submitted answer; for a run stopped by a limit, the best partial answer (or null). */
  answer: string | null;
  stopReason: StopReason;
  message: string | null;
  iterations: number;
  durationMs: number;
  /** Totals, and the same per model name (`byModel`). */
  usage: Usage & { calls: number; byModel: UsageByModel };
  /** The run's message history at the end, final reply included. */
  messages: ChatMessage[];
}

/** What every run of one conversation shares. */
export interface ConversationServices {
  config: RlmConfig;
  sink: EventSink;
  newRunId(): RunId;
  newCallId(): CallId;
  newBatchId(): string;
  /** Creates a REPL for a child run, with `context` loaded and the given tools. */
  createChildRepl(context: string, tools: Record<string, ToolSpec>, bridge: SubcallBridge): Promise<Repl>;
  contextWindow: number;
  /** Where the turns' replies go while they stream (not logged); absent: nobody watches. */
  live?: LiveReplySink;
  /** What protects the REPLs' code, when the REPL factory says (run.start's `sandbox`). */
  sandboxLayers?: readonly string[];
}

export interface RunParams {
  services: ConversationServices;
  runId: RunId;
  parentRunId: RunId | null;
  spawnedBy: SpawnPlace | null;
  depth: number;
  turn: number;
  model: string;
  query: string | null;
  /** The context as loaded in the REPL, for its description. */
  context: SandboxValue;
  repl: Repl;
  tools: Record<string, ToolSpec>;
  ledger: UsageLedger;
  /** USD this run (with its descendants) may spend; null for no limit. */
  budgetUsd: number | null;
  /** `performance.now()` time by which the run must end; null for no limit. */
  deadline: number | null;
  signal: AbortSignal | undefined;
  contextCount: number;
  historyCount: number;
  compaction: boolean;
  /** Called once a model call of this run has gone out (or ended): the REPL setup waits for it. */
  onModelCallSent?: () => void;
  /** The REPL is a fresh one that replaced the conversation's (the model's variables are gone): told on turn 1. */
  replLost?: boolean;
}

type Batch = { batchId: string; index: number; size: number };

/** How an iteration ended: its answer (if any), whether a block failed (the last error), the reply's text. */
interface TurnOutcome {
  answer: string | null;
  failed: boolean;
  lastError: string | null;
  reply: string;
}

/** What a turn's blocks did: the first submission, whether one failed and the last error, their results. */
interface BlocksOutcome {
  answer: string | null;
  failed: boolean;
  lastError: string | null;
  outputs: ExecResult[];
}

class StopRun extends Error {
  readonly reason: StopReason;
  constructor(reason: StopReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

/** What a sub-call's end records besides its response: its usage, retries, thinking and end. */
interface SubcallOutcome {
  usage?: Usage;
  retries?: number | undefined;
  reasoning?: ReplyReasoning | null;
  finishReason?: string | undefined;
  /** A substituted call's (it took no time): its latency and where its result came from. */
  substituted?: { counterfactual: SubcallCounterfactual };
}

/** A sub-call refused before it was made: `message` for its record, `text` (`"Error: …"`) for the code. */
interface SubcallRefusal {
  message: string;
  text: string;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class RlmRun implements SubcallBridge {
  private readonly p: RunParams;
  private readonly cfg: RlmConfig;
  private readonly limits;
  private readonly abort = new AbortController();
  private deadlineHit = false;
  private readonly started = performance.now();
  private messages: ChatMessage[] = [];
  /** Every message this run's history ever held: the REPL's `history` under compaction. */
  private readonly fullHistory: ChatMessage[] = [];
  /** How much of `fullHistory` the REPL's `history` holds. */
  private historySynced = 0;
  private compactions = 0;
  private bestPartial: string | null = null;
  private iteration = 0;
  /** The answer the running block submitted so far (`SubcallBridge.submitted`), by its site. */
  private liveSubmission: (CallSite & { text: string }) | null = null;
  /** A block was still running in the REPL when the run gave up on it (a cancel, the deadline). */
  private blockLeftRunning = false;
  /** Set when the run's REPL could not be set up (it is prepared during the first call). */
  private setupFailure: { error: unknown } | null = null;
  /** The endpoint's `prompt_tokens` for the last turn, and how many history messages that request held. */
  private reportedPrompt: { tokens: number; messages: number } | null = null;

  constructor(params: RunParams) {
    this.p = params;
    this.cfg = params.services.config;
    this.limits = limitsOf(this.cfg);
  }

  /**
   * The run stopped waiting for a block that went on running in its REPL: what the REPL holds
   * is not what the model was told (a persistent conversation replaces it).
   */
  get leftBlockRunning(): boolean {
    return this.blockLeftRunning;
  }

  private get sink(): EventSink {
    return this.p.services.sink;
  }

  private envelope(): { runId: RunId; parentRunId: RunId | null; depth: number } {
    return { runId: this.p.runId, parentRunId: this.p.parentRunId, depth: this.p.depth };
  }

  private get gateRun(): GateRun {
    return { runId: this.p.runId, depth: this.p.depth, repl: this.p.repl };
  }

  private get subModel(): string {
    return this.cfg.subModel ?? this.p.model;
  }

  /** The model of an `llm_query` that names none: a child's own model under the reference's routing. */
  private get llmQueryModel(): string {
    return this.p.depth > 0 && this.limits.childLlmModel === 'own' ? this.p.model : this.subModel;
  }

  private get canRecurse(): boolean {
    return this.p.depth + 1 < this.limits.maxDepth;
  }

  async run(): Promise<RunOutcome> {
    const onParentAbort = (): void => this.abort.abort();
    this.p.signal?.addEventListener('abort', onParentAbort, { once: true });
    if (this.p.signal?.aborted) this.abort.abort();
    let cancelTimer: (() => void) | undefined;
    if (this.p.deadline !== null) {
      cancelTimer = setLongTimeout(() => {
        this.deadlineHit = true;
        this.abort.abort();
      }, this.p.deadline - performance.now());
    }
    try {
      return await this.loop();
    } finally {
      cancelTimer?.();
      this.p.signal?.removeEventListener('abort', onParentAbort);
    }
  }

  private get language(): ReplLanguage {
    return this.cfg.repl ?? 'javascript';
  }

  /** The prompt pack every text of this run comes from. */
  private get pack(): PromptPack {
    return this.cfg.prompts ?? defaultPack(this.language);
  }

  /** Budgets for `llm_query`'s model: the window set for the root model when it is that model, else the table's. */
  private get budgets(): SubLmBudgets {
    const model = this.llmQueryModel;
    return subLmBudgets(model === this.cfg.model && this.cfg.contextWindow !== undefined ? this.cfg.contextWindow : model);
  }

  /**
   * The worked examples this run is shown: a root run only. A child gets a sub-problem its
   * parent wrote for it, often of a different shape; the examples would cost its window on
   * every turn and could pull it toward answering the root's kind of query.
   */
  private get examples(): WorkedExample[] {
    return this.p.depth === 0 ? (this.cfg.examples ?? []) : [];
  }

  private initialMessages(): ChatMessage[] {
    const pack = this.pack;
    const tools = Object.entries(this.p.tools).map(([name, t]) => ({
      name,
      description: t.description ?? defaultToolDescription(t.value, this.language, pack),
    }));
    const system =
      this.cfg.systemPrompt !== undefined
        ? fillSystemPrompt(this.cfg.systemPrompt, tools, pack, this.p.compaction)
        : buildSystemPrompt({
            tools,
            recursion: this.canRecurse,
            compaction: this.p.compaction,
            finalPatterns: this.cfg.finalPatterns ?? false,
            language: this.language,
            budgets: this.budgets,
            ...(this.limits.childLlmModel ? { childLlmModel: this.limits.childLlmModel } : {}),
            pack,
          });
    return [
      { role: 'system', content: system + (this.examples.length > 0 ? workedExamplesSection(this.examples, this.language) : '') },
      {
        role: 'user',
        content: buildMetadataMessage(describeContext(this.p.context, pack.semantics), this.p.query, this.language, this.budgets, pack),
      },
    ];
  }

  private async loop(): Promise<RunOutcome> {
    this.messages = this.initialMessages();
    this.fullHistory.push(...this.messages);
    this.sink.emit({
      type: 'run.start',
      ...this.envelope(),
      spawnedBy: this.p.spawnedBy,
      turn: this.p.turn,
      model: this.p.model,
      subModel: this.cfg.subModel ?? null,
      query: this.p.query,
      context: describeContext(this.p.context, this.pack.semantics),
      limits: {
        ...this.limits,
        maxBudgetUsd: this.p.budgetUsd,
        maxTimeoutMs: this.p.deadline === null ? null : Math.max(0, Math.round(this.p.deadline - performance.now())),
      },
      // Copies: listeners keep events, and the history array goes on changing.
      messages: [...this.messages],
      tools: Object.keys(this.p.tools),
      repl: this.language,
      ...(this.examples.length > 0
        ? { examples: this.examples.map((e) => ({ source: e.source, chars: e.text.length, repl: e.repl })) }
        : {}),
      ...requestFieldsOf(this.cfg.client, this.cfg.subClient),
      prompts: packIdentity(this.pack),
      ...(this.p.services.sandboxLayers ? { sandbox: { layers: [...this.p.services.sandboxLayers] } } : {}),
    });

    let answer: string | null = null;
    let consecutiveErrors = 0;
    try {
      for (this.iteration = 1; this.iteration <= this.limits.maxIterations; this.iteration++) {
        this.checkAbort();
        if (this.p.compaction) await this.maybeCompact();
        const turn = await this.turn();
        if (turn.answer !== null) {
          answer = turn.answer;
          break;
        }
        consecutiveErrors = turn.failed ? consecutiveErrors + 1 : 0;
        this.checkLimitsAfterTurn(consecutiveErrors, turn.lastError);
        // As the reference: a turn's reply becomes the partial answer once the turn has passed
        // the limits, so a stop (a limit, the deadline, a cancel) returns the last such reply.
        if (turn.reply.trim()) this.bestPartial = turn.reply;
      }
      if (answer === null) {
        this.iteration = this.limits.maxIterations + 1;
        this.limitEvent('max_iterations', `no answer after ${this.limits.maxIterations} iterations; asked the model for a final answer`);
        const request: ChatMessage = { role: this.pack.roles.finalAnswerRequest, content: this.pack.texts.finalAnswerRequest };
        const reply = await this.callModel('final_answer', [request]);
        this.messages.push({ role: 'assistant', content: reply.text });
        return this.finish(reply.text, 'max_iterations', `stopped at the iteration limit (${this.limits.maxIterations})`);
      }
      return this.finish(answer, 'answered', null);
    } catch (err) {
      const stop = this.asStop(err);
      if (stop.reason !== 'cancelled' && stop.reason !== 'error') this.limitEvent(stop.reason as LimitName, stop.message);
      return this.finish(this.bestPartial, stop.reason, stop.message);
    }
  }

  /** The REPL could not be set up: stop now, the call in flight included. */
  failSetup(error: unknown): void {
    this.setupFailure ??= { error };
    this.abort.abort();
  }

  private asStop(err: unknown): StopRun {
    if (this.setupFailure) return new StopRun('error', `the REPL could not be set up: ${errorText(this.setupFailure.error)}`);
    if (err instanceof StopRun) return err;
    if (this.deadlineHit) return this.timeoutStop();
    if (this.abort.signal.aborted) return new StopRun('cancelled', 'cancelled');
    return new StopRun('error', errorText(err));
  }

  private timeoutStop(): StopRun {
    const elapsed = (performance.now() - this.started) / 1000;
    return new StopRun('max_timeout', `time limit reached after ${elapsed.toFixed(1)} s (iteration ${this.iteration})`);
  }

  private outOfTime(): boolean {
    return this.deadlineHit || (this.p.deadline !== null && performance.now() >= this.p.deadline);
  }

  private checkAbort(): void {
    if (this.outOfTime()) {
      this.deadlineHit = true;
      throw this.timeoutStop();
    }
    if (this.abort.signal.aborted) throw new StopRun('cancelled', 'cancelled');
  }

  private checkLimitsAfterTurn(consecutiveErrors: number, lastError: string | null): void {
    const { maxErrors, maxTokens } = this.limits;
    if (maxErrors !== null && consecutiveErrors >= maxErrors) {
      throw new StopRun(
        'max_errors',
        `${consecutiveErrors} consecutive iterations with errors (limit ${maxErrors}); last: ${lastError ?? 'unknown'}`,
      );
    }
    const spent = this.p.ledger.totals.costUsd;
    if (this.p.budgetUsd !== null && spent > this.p.budgetUsd) {
      throw new StopRun('max_budget', `spent $${roundUsd(spent)} of a $${this.p.budgetUsd} budget after iteration ${this.iteration}`);
    }
    if (maxTokens !== null && this.p.ledger.tokens > maxTokens) {
      throw new StopRun('max_tokens', `used ${this.p.ledger.tokens} tokens of ${maxTokens} after iteration ${this.iteration}`);
    }
  }

  private limitEvent(limit: LimitName, message: string): void {
    this.sink.emit({ type: 'limit', ...this.envelope(), limit, message });
  }

  private finish(answer: string | null, stopReason: StopReason, message: string | null): RunOutcome {
    const durationMs = Math.round(performance.now() - this.started);
    const usage = this.p.ledger.summary();
    const iterations = Math.min(this.iteration, this.limits.maxIterations);
    this.sink.emit({ type: 'run.end', ...this.envelope(), answer, stopReason, message, iterations, durationMs, usage });
    return {
      runId: this.p.runId,
      answer,
      stopReason,
      message,
      iterations,
      durationMs,
      usage: { ...usage, byModel: this.p.ledger.byModel() },
      messages: this.messages,
    };
  }

  /**
   * Calls the run's model with the history plus `transient` messages that are not kept. The
   * result's text is the reply without its thinking (see reasoning-split.ts).
   */
  private async callModel(purpose: ModelCallPurpose, transient: ChatMessage[] = []): Promise<CompletionResult> {
    const messages = transient.length === 0 ? this.messages : [...this.messages, ...transient];
    this.checkAbort();
    let reply: CompletionResult;
    try {
      const onSent = this.p.onModelCallSent;
      const onDelta = this.liveDeltas(purpose);
      reply = await this.cfg.client.complete({
        model: this.p.model,
        messages,
        purpose,
        signal: this.abort.signal,
        ...(onSent ? { onSent } : {}),
        ...(onDelta ? { onDelta } : {}),
      });
    } catch (err) {
      if (this.abort.signal.aborted) throw this.asStop(err);
      this.sink.emit({
        type: 'model.error',
        ...this.envelope(),
        iteration: this.iteration,
        purpose,
        model: this.p.model,
        message: errorText(err),
      });
      const refusal = lengthRefusalOf(err);
      if (refusal) throw new StopRun('context_overflow', this.overflowText(refusal, messages));
      throw new StopRun('error', `model call failed: ${errorText(err)}`);
    } finally {
      this.p.onModelCallSent?.(); // clients that give no hint: at the latest when the call ends
    }
    this.p.ledger.add(reply.usage, this.p.model);
    const { text, reasoning } = replyParts(reply, this.cfg.thinkInReply ?? (this.pack.semantics === 'reference' ? 'keep' : 'split'));
    if (purpose === 'turn' && reply.promptTokensReported) {
      this.reportedPrompt = { tokens: reply.usage.inputTokens, messages: messages.length };
    }
    this.sink.emit({
      type: 'model.reply',
      ...this.envelope(),
      iteration: this.iteration,
      purpose,
      model: reply.model || this.p.model,
      text,
      usage: reply.usage,
      latencyMs: Math.round(reply.latencyMs),
      ...(reply.retries ? { retries: reply.retries } : {}),
      ...(transient.length > 0 ? { transient } : {}),
      ...(reasoning ? { reasoning } : {}),
      ...(reply.finishReason ? { finishReason: reply.finishReason } : {}),
    });
    return { ...reply, text };
  }

  /** The streamed pieces of this call, to the live sink when someone watches. */
  private liveDeltas(purpose: ModelCallPurpose): ((d: { content: string; reasoning: string }) => void) | null {
    const live = this.p.services.live;
    if (!live) return null;
    const t0 = performance.now();
    let chars = 0;
    const at = { ...this.envelope(), iteration: this.iteration, purpose, model: this.p.model };
    return (d) => {
      chars += d.content.length + d.reasoning.length;
      live.delta({
        runId: at.runId,
        depth: at.depth,
        iteration: at.iteration,
        purpose,
        model: at.model,
        content: d.content,
        reasoning: d.reasoning,
        tokens: Math.ceil(chars / 4),
        elapsedMs: Math.round(performance.now() - t0),
      });
    };
  }

  /** The stop message of a request refused for its length. */
  private overflowText(r: LengthRefusal, messages: ChatMessage[]): string {
    return overflowMessage(r, {
      at: `iteration ${this.iteration}`,
      estimatedTokens: estimateTokens(messages),
      assumedWindow: this.p.services.contextWindow,
      model: this.p.model,
    });
  }

  /** Tokens of the history as the endpoint last counted it plus our estimate of what came since; our estimate alone without a count. */
  private historyTokens(): number {
    const r = this.reportedPrompt;
    if (r === null || r.messages > this.messages.length) return estimateTokens(this.messages);
    return r.tokens + estimateTokens(this.messages.slice(r.messages));
  }

  private async maybeCompact(): Promise<void> {
    const threshold = Math.floor((this.cfg.compactionThreshold ?? RLM_DEFAULTS.compactionThreshold) * this.p.services.contextWindow);
    const tokens = this.historyTokens();
    if (tokens < threshold) return;
    const request: ChatMessage = { role: 'user', content: this.pack.texts.compactionRequest };
    const reply = await this.callModel('compaction', [request]);
    this.compactions++;
    this.fullHistory.push(request, { role: 'assistant', content: reply.text });
    this.messages = [
      ...this.messages.slice(0, 2),
      { role: 'assistant', content: reply.text },
      { role: 'user', content: compactionNote(this.compactions, this.pack) },
    ];
    this.reportedPrompt = null;
    this.sink.emit({
      type: 'compaction',
      ...this.envelope(),
      iteration: this.iteration,
      count: this.compactions,
      tokensBefore: tokens,
      summary: reply.text,
      messages: [...this.messages],
    });
  }

  /**
   * Brings the REPL's `history` up to date before code runs: everything the run's history ever
   * held, sending only what is new since the last block. Done here rather than at the start so
   * the REPL's set-up overlaps the first call.
   */
  private async syncHistory(): Promise<void> {
    if (!this.p.compaction || this.historySynced === this.fullHistory.length) return;
    const added = this.fullHistory.slice(this.historySynced);
    await this.p.repl.appendHistory(added as unknown as SandboxValue[]);
    this.historySynced = this.fullHistory.length;
  }

  /** The error a block counts toward `maxErrors`, or null: a raised error, or with 'stderr' any stderr output. */
  private countedError(res: ExecResult): string | null {
    if (res.error) return `${res.error.name}: ${res.error.message}`;
    if (this.limits.maxErrorsMode === 'stderr' && res.stderr !== '') {
      const text = res.stderr.trimEnd();
      return text.length > 500 ? `${text.slice(0, 500)}…` : text;
    }
    return null;
  }

  /** One iteration: the turn prompt, the model's reply and its blocks, what they printed. */
  private async turn(): Promise<TurnOutcome> {
    this.appendTurnPrompt();
    const iterStart = performance.now();
    const { reply, text, codes, originals } = await this.replyWithBlocks();
    const blocks = await this.runBlocks(codes, originals);
    const answer = blocks.answer ?? (this.cfg.finalPatterns ? await this.finalFromText(text) : null);
    this.appendTurnResult(reply, text, blocks.outputs, answer, iterStart);
    return { answer, failed: blocks.failed, lastError: blocks.lastError, reply: reply.text };
  }

  /** The iteration's user prompt, added to the history (a fresh REPL in place of the conversation's is told on turn 1). */
  private appendTurnPrompt(): void {
    const prompt = buildTurnPrompt({
      turn: this.iteration,
      maxIterations: this.limits.maxIterations,
      contextCount: this.p.contextCount,
      historyCount: this.p.historyCount,
      pack: this.pack,
    });
    const turnPrompt: ChatMessage = {
      role: 'user',
      content: this.iteration === 1 && this.p.replLost ? `${prompt}\n\n${fill(this.pack, 'replLost')}` : prompt,
    };
    this.messages.push(turnPrompt);
    this.fullHistory.push(turnPrompt);
    this.sink.emit({
      type: 'iteration.start',
      ...this.envelope(),
      iteration: this.iteration,
      appended: [turnPrompt],
      historyLength: this.messages.length,
      historyTokens: estimateTokens(this.messages),
    });
  }

  /**
   * The model's reply to the history and the blocks to run from it, as the gates leave them:
   * `text` and `codes` after a hand edit, `originals` the blocks the model wrote.
   */
  private async replyWithBlocks(): Promise<{ reply: CompletionResult; text: string; codes: string[]; originals: string[] }> {
    await this.cfg.gates?.beforeModelCall?.(this.gateRun, this.iteration, this.messages);
    const reply = await this.callModel('turn');
    let text = reply.text;
    const fences = this.pack.semantics;
    let codes = findReplBlocks(text, fences);
    const edit = await this.cfg.gates?.afterReply?.(this.gateRun, this.iteration, text, codes);
    const originals = [...codes];
    if (edit?.text !== undefined) {
      text = edit.text;
      codes = findReplBlocks(text, fences);
    }
    if (edit?.blocks) {
      for (const [i, code] of Object.entries(edit.blocks)) {
        const k = Number(i);
        if (k >= 0 && k < codes.length) codes[k] = code;
      }
    }
    return { reply, text, codes, originals };
  }

  /** Runs the turn's blocks in order: like the reference, every block runs and the first submission wins. */
  private async runBlocks(codes: readonly string[], originals: readonly string[]): Promise<BlocksOutcome> {
    const out: BlocksOutcome = { answer: null, failed: false, lastError: null, outputs: [] };
    if (codes.length > 0) await this.syncHistory();
    for (let b = 0; b < codes.length; b++) {
      // Out of time after an answer came in: the answer stands, the remaining blocks do not run.
      if (out.answer !== null && this.outOfTime()) break;
      const { res, cutShort } = await this.runBlock(b, codes[b]!, originals[b], out.answer);
      out.outputs.push(res);
      const error = this.countedError(res);
      if (error !== null) {
        out.failed = true;
        out.lastError = error;
      }
      // The paper-era loop took only a non-empty submission from code, leaving an empty one to the text scan.
      const submitted = this.cfg.finalPatterns && res.submitted === '' ? null : res.submitted;
      if (out.answer === null && submitted !== null) out.answer = submitted;
      if (cutShort) break;
      await this.cfg.gates?.afterBlock?.(this.gateRun, this.iteration, b, res.error !== null);
    }
    return out;
  }

  /**
   * Runs block `b` between its start and end events. `cutShort`: the deadline came during it
   * after an answer had come in (`answerSoFar`, or one this block submitted), which stands.
   */
  private async runBlock(
    b: number,
    code: string,
    original: string | undefined,
    answerSoFar: string | null,
  ): Promise<{ res: ExecResult; cutShort: boolean }> {
    this.sink.emit({
      type: 'block.start',
      ...this.envelope(),
      iteration: this.iteration,
      block: b,
      code,
      ...(original !== code ? { edited: { original: original ?? '', byHand: true as const } } : {}),
    });
    let res: ExecResult;
    let cutShort = false;
    const blockStart = performance.now();
    try {
      res = await this.execute(code, { iteration: this.iteration, block: b });
    } catch (err) {
      const live = this.liveSubmission?.iteration === this.iteration && this.liveSubmission.block === b ? this.liveSubmission.text : null;
      const stands = answerSoFar !== null || (live !== null && !(this.cfg.finalPatterns && live === ''));
      if (!stands || !(err instanceof StopRun) || err.reason !== 'max_timeout') throw err;
      res = abandonedBlock(err.message, performance.now() - blockStart, live);
      cutShort = true;
    }
    if (res.replReset) {
      this.sink.emit({ type: 'repl.reset', ...this.envelope(), iteration: this.iteration, block: b, reason: res.replReset });
    }
    this.sink.emit({ type: 'block.end', ...this.envelope(), iteration: this.iteration, block: b, ...blockEndFields(res) });
    return { res, cutShort };
  }

  /** Adds the reply and what its blocks printed (and a note on a reply cut mid-block) to the history; ends the iteration. */
  private appendTurnResult(reply: CompletionResult, text: string, outputs: ExecResult[], answer: string | null, iterStart: number): void {
    const appended: ChatMessage[] = [{ role: 'assistant', content: text }];
    if (outputs.length > 0) {
      appended.push({
        role: 'user',
        content: buildReplOutputMessage(
          outputs.map((o) => ({
            stdout: o.stdout,
            stderr: o.stderr,
            error: o.error,
            variables: o.variables,
            replReset: o.replReset ? o.replReset.replace('_', ' ') : null,
          })),
          this.language,
          this.pack,
        ),
      });
    }
    if (wasCut(reply) && (this.cfg.replyCutNotice ?? this.pack.semantics !== 'reference') && hasUnclosedReplFence(text)) {
      appended.push({ role: 'user', content: fill(this.pack, 'replyCut') });
    }
    this.messages.push(...appended);
    this.fullHistory.push(...appended);
    this.sink.emit({
      type: 'iteration.end',
      ...this.envelope(),
      iteration: this.iteration,
      appended,
      finalAnswer: answer,
      durationMs: Math.round(performance.now() - iterStart),
    });
  }

  /** Runs a block, giving up on it at once if the run is cancelled or out of time. */
  private async execute(code: string, site: CallSite): Promise<ExecResult> {
    this.checkAbort();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Error('aborted'));
      this.abort.signal.addEventListener('abort', onAbort, { once: true });
    });
    this.liveSubmission = null;
    try {
      return await Promise.race([this.p.repl.execute(code, site), aborted]);
    } catch (err) {
      this.blockLeftRunning = true;
      throw this.asStop(err);
    } finally {
      if (onAbort) this.abort.signal.removeEventListener('abort', onAbort);
    }
  }

  private async finalFromText(text: string): Promise<string | null> {
    const signal = findFinalSignal(text);
    if (signal === null) return null;
    if (signal.kind === 'final') return signal.answer;
    const res = await this.p.repl.execute(`FINAL_VAR(${JSON.stringify(signal.name)})`, { iteration: this.iteration, block: -1 });
    // As the reference read it back from printed output: trimmed, and an empty value is no answer.
    const value = res.submitted?.trim() ?? '';
    return value === '' ? null : value;
  }

  // ---- Sub-calls (the REPL's bridge) ----

  /**
   * The model a sub-call names, checked; when it names none, `llm_query`'s default or (leaf
   * calls) the sub model. A model this run may not use is refused: `message` for the call's
   * record, `text` for the code that made it.
   */
  private resolveModel(model: string | undefined, kind: SubcallKind = 'rlm'): { model: string } | { refused: SubcallRefusal } {
    if (model === undefined || model === null || model === '') return { model: kind === 'llm' ? this.llmQueryModel : this.subModel };
    const allowed = new Set([this.cfg.model, this.subModel, this.p.model, ...(this.cfg.extraModels ?? [])]);
    if (allowed.has(model)) return { model };
    const models = [...allowed].join(', ');
    const message = `unknown model "${model}"; this run can use: ${models}`;
    return { refused: { message, text: fill(this.pack, 'unknownModel', { model, models }) } };
  }

  /** Records the start of a sub-call; returns its id and the function that records its end. */
  private beginSubcall(fields: {
    prompt: string;
    model: string;
    site: CallSite;
    kind: SubcallKind;
    leaf: boolean;
    batch: Batch | null;
    childRunId: RunId | null;
  }): { callId: CallId; end: (response: string, error: string | null, outcome?: SubcallOutcome) => string } {
    const callId = this.p.services.newCallId();
    const { site, ...rest } = fields;
    this.sink.emit({ type: 'subcall.start', ...this.envelope(), callId, iteration: site.iteration, block: site.block, ...rest });
    const t0 = performance.now();
    const end = (response: string, error: string | null, o: SubcallOutcome = {}): string => {
      this.sink.emit({
        type: 'subcall.end',
        ...this.envelope(),
        callId,
        response,
        error,
        usage: o.usage ?? ZERO_USAGE,
        latencyMs: o.substituted ? 0 : Math.round(performance.now() - t0),
        ...(o.retries ? { retries: o.retries } : {}),
        ...(o.reasoning ? { reasoning: o.reasoning } : {}),
        ...(o.finishReason ? { finishReason: o.finishReason } : {}),
        ...(o.substituted ? { counterfactual: o.substituted.counterfactual } : {}),
      });
      return response;
    };
    return { callId, end };
  }

  /** Records a sub-call whose result the configured substitutions give (a counterfactual fork), without making it. */
  private substitute(
    fields: { prompt: string; model: string; site: CallSite; kind: SubcallKind; leaf: boolean; batch: Batch | null },
    child: boolean,
  ): string | null {
    const sub = this.cfg.substitutions?.take({
      runId: this.p.runId,
      iteration: fields.site.iteration,
      block: fields.site.block,
      kind: fields.kind,
      prompt: fields.prompt,
      child,
    });
    if (!sub) return null;
    const { end } = this.beginSubcall({ ...fields, childRunId: null });
    return end(sub.response, sub.error, { substituted: { counterfactual: sub.counterfactual } });
  }

  private async plainCall(
    prompt: string,
    modelArg: string | undefined,
    site: CallSite,
    kind: SubcallKind,
    batch: Batch | null,
  ): Promise<string> {
    const resolved = this.resolveModel(modelArg, kind);
    const model = 'model' in resolved ? resolved.model : (modelArg ?? '');
    const substituted = this.substitute({ prompt, model, site, kind, leaf: kind === 'rlm', batch }, false);
    if (substituted !== null) return substituted;
    const { end } = this.beginSubcall({ prompt, model, site, kind, leaf: kind === 'rlm', batch, childRunId: null });
    if ('refused' in resolved) return end(resolved.refused.text, resolved.refused.message);
    await this.cfg.gates?.onSubcallStart?.(this.gateRun, site.iteration, site.block, kind, prompt);
    if (this.abort.signal.aborted) return end(fill(this.pack, 'subcallStopped'), 'aborted');
    try {
      // Under the reference's routing a child's own-model `llm_query` goes where its turns go.
      const ownRouted = kind === 'llm' && !modelArg && this.llmQueryModel !== this.subModel;
      const client = ownRouted ? this.cfg.client : this.plainClient(model);
      const res = await client.complete({ model, messages: [{ role: 'user', content: prompt }], signal: this.abort.signal });
      this.p.ledger.add(res.usage, model);
      const { text, reasoning } = replyParts(res, this.cfg.thinkInReply ?? (this.pack.semantics === 'reference' ? 'keep' : 'split'));
      return end(text, null, { usage: res.usage, retries: res.retries, reasoning, finishReason: res.finishReason });
    } catch (err) {
      if (this.abort.signal.aborted) return end(fill(this.pack, 'subcallStopped'), 'the run was stopped');
      const msg = errorText(err);
      return end(fill(this.pack, batch === null ? 'subcallFailed' : 'subcallFailedBatched', { error: msg }), msg);
    }
  }

  /** The sub-call client, except for a call naming the root model when a distinct sub-model is set. */
  private plainClient(model: string): LmClient {
    const { client, subClient, subModel } = this.cfg;
    if (subClient === undefined) return client;
    return model === this.cfg.model && subModel !== undefined && subModel !== null && subModel !== this.cfg.model ? client : subClient;
  }

  private async childRun(prompt: string, modelArg: string | undefined, site: CallSite, batch: Batch | null): Promise<string> {
    const svc = this.p.services;
    const resolved = this.resolveModel(modelArg);
    const model = 'model' in resolved ? (modelArg ? resolved.model : this.p.model) : (modelArg ?? '');
    // A substituted child call spawns no run: its result is the counterfactual re-run's.
    const substituted = this.substitute({ prompt, model, site, kind: 'rlm', leaf: false, batch }, true);
    if (substituted !== null) return substituted;
    const childRunId = svc.newRunId();
    // A child's own events carry its usage, so the call record itself carries none.
    const { callId, end } = this.beginSubcall({ prompt, model, site, kind: 'rlm', leaf: false, batch, childRunId });
    if ('refused' in resolved) return end(resolved.refused.text, resolved.refused.message);
    await this.cfg.gates?.onSubcallStart?.(this.gateRun, site.iteration, site.block, 'rlm', prompt);
    const spent = this.p.ledger.totals.costUsd;
    if (this.p.budgetUsd !== null && spent >= this.p.budgetUsd) {
      // Dollar figures as text: a pack's number grouping is for counts, not cents.
      const text = fill(this.pack, 'childBudgetExhausted', { spent: String(roundUsd(spent)), budget: String(this.p.budgetUsd) });
      return end(text, 'budget exhausted');
    }
    if (this.p.deadline !== null && performance.now() >= this.p.deadline) {
      return end(fill(this.pack, 'childTimeExhausted'), 'time exhausted');
    }
    if (this.abort.signal.aborted) return end(fill(this.pack, 'subcallStopped'), 'aborted');

    const tools = this.cfg.subTools ?? this.cfg.tools ?? {};
    let repl: Repl | null = null;
    try {
      let child: RlmRun | null = null;
      // The REPL needs its bridge before the run that answers it exists.
      repl = await svc.createChildRepl(
        prompt,
        tools,
        forwardingBridge(() => child),
      );
      child = new RlmRun({
        services: svc,
        runId: childRunId,
        parentRunId: this.p.runId,
        spawnedBy: { runId: this.p.runId, iteration: site.iteration, block: site.block, callId },
        depth: this.p.depth + 1,
        turn: this.p.turn,
        model,
        query: null,
        context: prompt,
        repl,
        tools,
        ledger: new UsageLedger(this.p.ledger),
        budgetUsd: this.p.budgetUsd === null ? null : this.p.budgetUsd - spent,
        deadline: this.p.deadline,
        signal: this.abort.signal,
        contextCount: 1,
        historyCount: 0,
        compaction: false,
      });
      const out = await child.run();
      if (out.stopReason === 'answered' || out.stopReason === 'max_iterations') return end(out.answer ?? '', null);
      const stopped = { reason: out.stopReason, message: out.message ?? '' };
      return end(
        out.answer ? fill(this.pack, 'childStoppedPartial', { ...stopped, answer: out.answer }) : fill(this.pack, 'childStopped', stopped),
        `${out.stopReason}: ${out.message ?? ''}`,
      );
    } catch (err) {
      return end(fill(this.pack, 'childFailed', { error: errorText(err) }), errorText(err));
    } finally {
      repl?.dispose();
    }
  }

  llmQuery(prompt: string, model: string | undefined, site: CallSite): Promise<string> {
    return this.plainCall(prompt, model, site, 'llm', null);
  }

  async llmQueryBatched(prompts: string[], model: string | undefined, site: CallSite): Promise<string[]> {
    const batchId = this.p.services.newBatchId();
    return mapBounded(prompts, this.limits.maxConcurrencyLlm, (p, index) =>
      this.plainCall(p, model, site, 'llm', { batchId, index, size: prompts.length }),
    );
  }

  submitted(text: string, site: CallSite): void {
    this.liveSubmission = { ...site, text };
  }

  rlmQuery(prompt: string, model: string | undefined, site: CallSite): Promise<string> {
    return this.canRecurse ? this.childRun(prompt, model, site, null) : this.plainCall(prompt, model, site, 'rlm', null);
  }

  async rlmQueryBatched(prompts: string[], model: string | undefined, site: CallSite): Promise<string[]> {
    const batchId = this.p.services.newBatchId();
    // At max depth these are plain calls, as `llm_query_batched` (the reference's fallback).
    const limit = this.canRecurse ? this.limits.maxConcurrencyRlm : this.limits.maxConcurrencyLlm;
    return mapBounded(prompts, limit, (p, index) => {
      const batch = { batchId, index, size: prompts.length };
      return this.canRecurse ? this.childRun(p, model, site, batch) : this.plainCall(p, model, site, 'rlm', batch);
    });
  }
}

/** What is recorded of a block the deadline cut short after an answer had come in (`submitted`: by this block). */
function abandonedBlock(message: string, durationMs: number, submitted: string | null): ExecResult {
  return {
    stdout: '',
    stderr: '',
    error: { name: 'TimeoutError', message: `${message}; the block was abandoned` },
    durationMs,
    cpuMs: 0,
    submitted,
    variables: [],
    replReset: null,
  };
}

/** A bridge that forwards to a target resolved at call time. */
export function forwardingBridge(target: () => SubcallBridge | null): SubcallBridge {
  const get = (): SubcallBridge => {
    const t = target();
    if (t === null) throw new Error('sub-call before the run was ready');
    return t;
  };
  return {
    llmQuery: (p, m, s) => get().llmQuery(p, m, s),
    llmQueryBatched: (p, m, s) => get().llmQueryBatched(p, m, s),
    rlmQuery: (p, m, s) => get().rlmQuery(p, m, s),
    rlmQueryBatched: (p, m, s) => get().rlmQueryBatched(p, m, s),
    submitted: (text, s) => target()?.submitted?.(text, s),
  };
}
