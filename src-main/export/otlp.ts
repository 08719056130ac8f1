// Sessions as OpenTelemetry traces, following the GenAI semantic conventions: an
// `invoke_agent` span per run, a `chat` span per model request (a run's own calls and its
// plain sub-calls), an `execute_tool repl` span per REPL block, child runs under the block
// that spawned them. One trace per root run; the session is the conversation.
//
// Spans are built as the SDK's ReadableSpan records straight from the events, not through a
// Tracer: a Tracer stamps the current time and random ids, and these spans carry the
// recorded times and ids derived from the session and run/call ids (exporting the same log
// twice, or a live session and later its log, gives the same trace and span ids).
import { createHash } from 'node:crypto';
import { type Attributes, type HrTime, type SpanContext, SpanKind, type SpanStatus, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from '@opentelemetry/semantic-conventions/incubating';
import type {
  BlockStartEvent,
  CallId,
  ChatMessage,
  ReplyReasoning,
  RunId,
  RunStartEvent,
  SubcallStartEvent,
  TrajectoryEvent,
  Usage,
} from '../../src-shared/events.ts';
import { ModelCallFolder } from '../../src-shared/trajectory/model-calls.ts';

/** What the agent spans call the agent. */
const AGENT_NAME = 'rlm';
/** The REPL as the tool the blocks execute. */
const REPL_TOOL = 'repl';
/**
 * Every model request goes through an OpenAI-compatible client; the conventions ask for
 * `openai` in that case whatever serves the endpoint.
 */
const PROVIDER = 'openai';

const OTLP_RESOURCE: Resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'rlm-studio' });
const SCOPE: InstrumentationScope = { name: 'rlm-studio' };

export interface OtlpMapOptions {
  /** Put prompts, replies, code and outputs on the spans (the conventions' opt-in content attributes). */
  content: boolean;
}

/** A hex id of `bytes` bytes derived from the session and a key, never all zeros (invalid in OTLP). */
function derivedId(sessionId: string, key: string, bytes: number): string {
  const hex = createHash('sha256')
    .update(`${sessionId}\u0000${key}`)
    .digest('hex')
    .slice(0, bytes * 2);
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

export function traceIdOf(sessionId: string, rootRunId: string): string {
  return derivedId(sessionId, `trace/${rootRunId}`, 16);
}

export function runSpanIdOf(sessionId: string, runId: string): string {
  return derivedId(sessionId, `run/${runId}`, 8);
}

function msToHrTime(ms: number): HrTime {
  const sec = Math.floor(ms / 1000);
  const ns = Math.min(999_999_999, Math.max(0, Math.round((ms - sec * 1000) * 1e6)));
  return [sec, ns];
}

/** The conventions' structured message form (gen_ai.input.messages / gen_ai.output.messages), as JSON. */
function messagesJson(messages: readonly ChatMessage[]): string {
  return JSON.stringify(messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] })));
}

/**
 * The reply as the conventions' output message: the thinking as a `reasoning` part before the
 * text, and why it ended (`stop` when the log does not say).
 */
function outputJson(text: string, reply: { reasoning?: ReplyReasoning; finishReason?: string } = {}): string {
  const parts = [...(reply.reasoning ? [{ type: 'reasoning', content: reply.reasoning.text }] : []), { type: 'text', content: text }];
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: reply.finishReason ?? 'stop' }]);
}

function usageAttributes(u: Usage): Attributes {
  const a: Attributes = { [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: u.inputTokens, [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: u.outputTokens };
  if (u.cachedInputTokens) a['gen_ai.usage.cache_read.input_tokens'] = u.cachedInputTokens;
  if (u.reasoningTokens) a['rlm.usage.reasoning_tokens'] = u.reasoningTokens;
  if (u.costUsd !== null) a['rlm.cost_usd'] = u.costUsd;
  return a;
}

/** `gen_ai.response.finish_reasons` when the endpoint said why the reply ended. */
function finishAttributes(finishReason: string | undefined): Attributes {
  return finishReason ? { 'gen_ai.response.finish_reasons': [finishReason] } : {};
}

interface OpenRun {
  start: RunStartEvent;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  /** Model requests of this run so far: numbers its `chat` spans. */
  modelCalls: number;
  /** Time of this run's previous event: where a failed model request started. */
  lastT: number;
  events: TimedEvent[];
}

interface OpenBlock {
  start: BlockStartEvent;
  spanId: string;
  run: OpenRun;
}

interface OpenSubcall {
  start: SubcallStartEvent;
  spanId: string;
  parentSpanId: string;
  run: OpenRun;
}

/**
 * Folds one session's events (in `seq` order) into spans, handing each to `onSpan` when its
 * end event arrives; `flush()` ends what a cut-short log left open.
 */
export class OtlpSpanFolder {
  private readonly sessionId: string;
  private readonly onSpan: (s: ReadableSpan) => void;
  private readonly opts: OtlpMapOptions;
  /** Epoch milliseconds of the session's `t` = 0, from the first event's wall clock. */
  private origin: number | null = null;
  private lastT = 0;
  private readonly runs = new Map<RunId, OpenRun>();
  private readonly blocks = new Map<string, OpenBlock>();
  private readonly subcalls = new Map<CallId, OpenSubcall>();
  /** Child runs seen starting: their spawning sub-call gets no span of its own. */
  private readonly spawned = new Set<RunId>();
  /** Gives each run's model requests their exact messages (only needed with content). */
  private calls: ModelCallFolder | null = null;
  private lastCallMessages: ChatMessage[] | null = null;

  constructor(sessionId: string, onSpan: (s: ReadableSpan) => void, opts: OtlpMapOptions) {
    this.sessionId = sessionId;
    this.onSpan = onSpan;
    this.opts = opts;
  }

  push(e: TrajectoryEvent): void {
    if (this.origin === null) {
      const wall = Date.parse(e.ts);
      this.origin = (Number.isFinite(wall) ? wall : 0) - e.t;
    }
    this.lastT = Math.max(this.lastT, e.t);
    if (this.opts.content) {
      this.calls ??= new ModelCallFolder({ call: (c) => void (this.lastCallMessages = c.messages) });
      this.calls.push(e);
    }
    this.fold(e);
    const run = this.runs.get(e.runId);
    if (run) run.lastT = e.t;
    // Nothing open: the model-call fold's histories can go (a long-lived host streams many turns).
    if (this.runs.size === 0) {
      this.calls = null;
      this.spawned.clear();
    }
  }

  /** Ends every span still open at the last event's time, marked `rlm.unfinished`. */
  flush(): void {
    const t = this.lastT;
    for (const s of this.subcalls.values()) {
      if (s.start.childRunId === null || !this.spawned.has(s.start.childRunId)) this.emitSubcall(s, t, null, { 'rlm.unfinished': true });
    }
    this.subcalls.clear();
    for (const b of this.blocks.values()) this.emit(this.blockSpan(b, t, { 'rlm.unfinished': true }, { code: SpanStatusCode.UNSET }));
    this.blocks.clear();
    for (const r of this.runs.values()) this.emit(this.runSpan(r, t, { 'rlm.unfinished': true }, { code: SpanStatusCode.UNSET }));
    this.runs.clear();
  }

  private fold(e: TrajectoryEvent): void {
    switch (e.type) {
      case 'run.start': {
        const parent = e.parentRunId === null ? undefined : this.runs.get(e.parentRunId);
        const rootTrace = parent?.traceId ?? traceIdOf(this.sessionId, e.runId);
        const place = e.spawnedBy;
        // A child run hangs under the block whose code spawned it.
        const parentSpanId = place === null ? null : this.blockSpanId(place.runId, place.iteration, place.block);
        if (place !== null) this.spawned.add(e.runId);
        this.runs.set(e.runId, {
          start: e,
          traceId: rootTrace,
          spanId: runSpanIdOf(this.sessionId, e.runId),
          parentSpanId,
          modelCalls: 0,
          lastT: e.t,
          events: [],
        });
        return;
      }
      case 'run.end': {
        const run = this.runs.get(e.runId);
        if (!run) return;
        this.runs.delete(e.runId);
        const attrs: Attributes = {
          ...usageAttributes(e.usage),
          'rlm.stop_reason': e.stopReason,
          'rlm.iterations': e.iterations,
          'rlm.calls': e.usage.calls,
        };
        if (this.opts.content && e.answer !== null) attrs[ATTR_GEN_AI_OUTPUT_MESSAGES] = outputJson(e.answer);
        const failed = e.stopReason === 'error';
        if (failed) attrs[ATTR_ERROR_TYPE] = 'error';
        const status: SpanStatus = failed
          ? { code: SpanStatusCode.ERROR, message: e.message ?? 'the run failed' }
          : { code: SpanStatusCode.UNSET };
        this.emit(this.runSpan(run, e.t, attrs, status));
        return;
      }
      case 'model.reply':
      case 'model.error': {
        const run = this.runs.get(e.runId);
        if (!run) return;
        const n = run.modelCalls++;
        const attrs: Attributes = {
          ...this.genAi('chat'),
          [ATTR_GEN_AI_REQUEST_MODEL]: e.model,
          'rlm.run_id': e.runId,
          'rlm.depth': run.start.depth,
          'rlm.iteration': e.iteration,
          'rlm.purpose': e.purpose,
        };
        let status: SpanStatus = { code: SpanStatusCode.UNSET };
        let start: number;
        if (e.type === 'model.reply') {
          start = e.t - e.latencyMs;
          Object.assign(attrs, { [ATTR_GEN_AI_RESPONSE_MODEL]: e.model }, usageAttributes(e.usage), finishAttributes(e.finishReason));
          if (this.opts.content) {
            if (this.lastCallMessages !== null) attrs[ATTR_GEN_AI_INPUT_MESSAGES] = messagesJson(this.lastCallMessages);
            attrs[ATTR_GEN_AI_OUTPUT_MESSAGES] = outputJson(e.text, e);
          }
        } else {
          start = run.lastT;
          attrs[ATTR_ERROR_TYPE] = 'model_error';
          status = { code: SpanStatusCode.ERROR, message: e.message };
        }
        this.lastCallMessages = null;
        this.emit(
          this.span({
            name: `chat ${e.model}`,
            kind: SpanKind.CLIENT,
            traceId: run.traceId,
            spanId: derivedId(this.sessionId, `model/${e.runId}/${n}`, 8),
            parentSpanId: run.spanId,
            start,
            end: e.t,
            attributes: attrs,
            status,
          }),
        );
        return;
      }
      case 'block.start': {
        const run = this.runs.get(e.runId);
        if (!run) return;
        this.blocks.set(this.blockKey(e.runId, e.iteration, e.block), {
          start: e,
          spanId: this.blockSpanId(e.runId, e.iteration, e.block),
          run,
        });
        return;
      }
      case 'block.end': {
        const key = this.blockKey(e.runId, e.iteration, e.block);
        const b = this.blocks.get(key);
        if (!b) return;
        this.blocks.delete(key);
        const attrs: Attributes = { 'rlm.cpu_ms': e.cpuMs };
        if (e.replReset !== null) attrs['rlm.repl_reset'] = e.replReset;
        if (e.submitted !== null) attrs['rlm.submitted'] = true;
        if (this.opts.content)
          attrs[ATTR_GEN_AI_TOOL_CALL_RESULT] = e.stderr === '' ? e.stdout : `${e.stdout}${e.stdout === '' ? '' : '\n'}${e.stderr}`;
        let status: SpanStatus = { code: SpanStatusCode.UNSET };
        if (e.error !== null) {
          attrs[ATTR_ERROR_TYPE] = e.error.name;
          status = { code: SpanStatusCode.ERROR, message: e.error.message };
        }
        this.emit(this.blockSpan(b, e.t, attrs, status));
        return;
      }
      case 'subcall.start': {
        const run = this.runs.get(e.runId);
        if (!run) return;
        this.subcalls.set(e.callId, {
          start: e,
          spanId: derivedId(this.sessionId, `subcall/${e.callId}`, 8),
          parentSpanId: this.blockSpanId(e.runId, e.iteration, e.block),
          run,
        });
        return;
      }
      case 'subcall.end': {
        const s = this.subcalls.get(e.callId);
        if (!s) return;
        this.subcalls.delete(e.callId);
        // A spawned child run is its own agent span under the block; the call adds nothing to it.
        if (s.start.childRunId !== null && this.spawned.has(s.start.childRunId)) return;
        const attrs: Attributes = {
          [ATTR_GEN_AI_RESPONSE_MODEL]: s.start.model,
          ...usageAttributes(e.usage),
          ...finishAttributes(e.finishReason),
        };
        if (this.opts.content) attrs[ATTR_GEN_AI_OUTPUT_MESSAGES] = outputJson(e.response, e);
        this.emitSubcall(s, e.t, e.error, attrs, e.latencyMs);
        return;
      }
      case 'limit':
        this.runs
          .get(e.runId)
          ?.events.push({ time: this.hr(e.t), name: 'rlm.limit', attributes: { 'rlm.limit': e.limit, 'rlm.message': e.message } });
        return;
      case 'compaction':
        this.runs.get(e.runId)?.events.push({
          time: this.hr(e.t),
          name: 'rlm.compaction',
          attributes: { 'rlm.iteration': e.iteration, 'rlm.tokens_before': e.tokensBefore },
        });
        return;
      case 'repl.reset':
        this.runs.get(e.runId)?.events.push({
          time: this.hr(e.t),
          name: 'rlm.repl_reset',
          attributes: { 'rlm.iteration': e.iteration, 'rlm.block': e.block, 'rlm.reason': e.reason },
        });
        return;
      case 'iteration.start':
      case 'iteration.end':
        return;
    }
  }

  private emit(s: ReadableSpan): void {
    this.onSpan(s);
  }

  private hr(t: number): HrTime {
    return msToHrTime((this.origin ?? 0) + t);
  }

  private genAi(operation: 'chat' | 'invoke_agent' | 'execute_tool'): Attributes {
    return {
      [ATTR_GEN_AI_OPERATION_NAME]: operation,
      [ATTR_GEN_AI_PROVIDER_NAME]: PROVIDER,
      // Deprecated name of the provider, still read by some backends.
      [ATTR_GEN_AI_SYSTEM]: PROVIDER,
      [ATTR_GEN_AI_CONVERSATION_ID]: this.sessionId,
    };
  }

  private blockKey(runId: string, iteration: number, block: number): string {
    return `${runId}/${iteration}/${block}`;
  }

  private blockSpanId(runId: string, iteration: number, block: number): string {
    return derivedId(this.sessionId, `block/${this.blockKey(runId, iteration, block)}`, 8);
  }

  private runSpan(r: OpenRun, end: number, extra: Attributes, status: SpanStatus): ReadableSpan {
    const s = r.start;
    const attrs: Attributes = {
      ...this.genAi('invoke_agent'),
      [ATTR_GEN_AI_AGENT_NAME]: AGENT_NAME,
      [ATTR_GEN_AI_AGENT_ID]: s.runId,
      [ATTR_GEN_AI_REQUEST_MODEL]: s.model,
      'rlm.run_id': s.runId,
      'rlm.depth': s.depth,
      'rlm.turn': s.turn,
      'rlm.repl': s.repl ?? 'javascript',
      'rlm.context.type': s.context.type,
      'rlm.context.chars': s.context.totalChars,
      'rlm.limits.max_depth': s.limits.maxDepth,
      'rlm.limits.max_iterations': s.limits.maxIterations,
    };
    if (s.subModel !== null) attrs['rlm.sub_model'] = s.subModel;
    if (s.spawnedBy !== null) attrs['rlm.call_id'] = s.spawnedBy.callId;
    if (this.opts.content && s.query !== null) attrs[ATTR_GEN_AI_INPUT_MESSAGES] = messagesJson([{ role: 'user', content: s.query }]);
    return this.span({
      name: `invoke_agent ${AGENT_NAME}`,
      kind: SpanKind.INTERNAL,
      traceId: r.traceId,
      spanId: r.spanId,
      parentSpanId: r.parentSpanId,
      start: s.t,
      end,
      attributes: { ...attrs, ...extra },
      status,
      events: r.events,
    });
  }

  private blockSpan(b: OpenBlock, end: number, extra: Attributes, status: SpanStatus): ReadableSpan {
    const s = b.start;
    const attrs: Attributes = {
      ...this.genAi('execute_tool'),
      [ATTR_GEN_AI_TOOL_NAME]: REPL_TOOL,
      [ATTR_GEN_AI_TOOL_CALL_ID]: this.blockKey(s.runId, s.iteration, s.block),
      'rlm.run_id': s.runId,
      'rlm.iteration': s.iteration,
      'rlm.block': s.block,
    };
    if (s.edited) attrs['rlm.edited'] = true;
    if (this.opts.content) attrs[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = s.code;
    return this.span({
      name: `execute_tool ${REPL_TOOL}`,
      kind: SpanKind.INTERNAL,
      traceId: b.run.traceId,
      spanId: b.spanId,
      parentSpanId: b.run.spanId,
      start: s.t,
      end,
      attributes: { ...attrs, ...extra },
      status,
    });
  }

  private emitSubcall(s: OpenSubcall, end: number, error: string | null, extra: Attributes, latencyMs?: number): void {
    const st = s.start;
    const attrs: Attributes = {
      ...this.genAi('chat'),
      [ATTR_GEN_AI_REQUEST_MODEL]: st.model,
      'rlm.run_id': st.runId,
      'rlm.depth': st.depth + 1,
      'rlm.iteration': st.iteration,
      'rlm.block': st.block,
      'rlm.purpose': 'subcall',
      'rlm.call_id': st.callId,
      'rlm.subcall.kind': st.kind,
      'rlm.subcall.leaf': st.leaf,
    };
    if (st.batch !== null)
      Object.assign(attrs, { 'rlm.batch.id': st.batch.batchId, 'rlm.batch.index': st.batch.index, 'rlm.batch.size': st.batch.size });
    if (this.opts.content) attrs[ATTR_GEN_AI_INPUT_MESSAGES] = messagesJson([{ role: 'user', content: st.prompt }]);
    let status: SpanStatus = { code: SpanStatusCode.UNSET };
    if (error !== null) {
      attrs[ATTR_ERROR_TYPE] = 'subcall_error';
      status = { code: SpanStatusCode.ERROR, message: error };
    }
    this.emit(
      this.span({
        name: `chat ${st.model}`,
        kind: SpanKind.CLIENT,
        traceId: s.run.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId,
        // The call's own latency when recorded (a batch's calls start together, queue, then go out).
        start: latencyMs === undefined ? st.t : Math.max(st.t, end - latencyMs),
        end,
        attributes: { ...attrs, ...extra },
        status,
      }),
    );
  }

  private span(p: {
    name: string;
    kind: SpanKind;
    traceId: string;
    spanId: string;
    parentSpanId: string | null;
    start: number;
    end: number;
    attributes: Attributes;
    status: SpanStatus;
    events?: TimedEvent[];
  }): ReadableSpan {
    const ctx: SpanContext = { traceId: p.traceId, spanId: p.spanId, traceFlags: TraceFlags.SAMPLED };
    const startMs = (this.origin ?? 0) + p.start;
    const endMs = (this.origin ?? 0) + Math.max(p.start, p.end);
    return {
      name: p.name,
      kind: p.kind,
      spanContext: () => ctx,
      ...(p.parentSpanId === null
        ? {}
        : { parentSpanContext: { traceId: p.traceId, spanId: p.parentSpanId, traceFlags: TraceFlags.SAMPLED } }),
      startTime: msToHrTime(startMs),
      endTime: msToHrTime(endMs),
      duration: msToHrTime(endMs - startMs),
      status: p.status,
      attributes: p.attributes,
      links: [],
      events: p.events ?? [],
      ended: true,
      resource: OTLP_RESOURCE,
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  }
}
