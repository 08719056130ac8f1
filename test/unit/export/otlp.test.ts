// Sessions as OpenTelemetry spans: the tree (runs, model requests, blocks, sub-calls, child
// runs), the GenAI attributes, the recorded times and the derived ids, on the synthetic
// scenario and on a reference log with child runs.
import { join } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { hrTimeToMilliseconds } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { ModelCallFolder } from '../../../src-shared/trajectory/model-calls.ts';
import { OtlpSpanFolder, runSpanIdOf, traceIdOf } from '../../../src-main/export/otlp.ts';
import { otlpJson } from '../../../src-main/export/otlp-transport.ts';
import { readEvents } from '../../../src-main/export/read-events.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { scenario } from '../trajectory/synthetic.ts';

const ORIGIN = Date.UTC(2026, 0, 1);

function fold(events: readonly TrajectoryEvent[], sessionId = 'S', content = true): ReadableSpan[] {
  const spans: ReadableSpan[] = [];
  const f = new OtlpSpanFolder(sessionId, (s) => spans.push(s), { content });
  for (const e of events) f.push(e);
  f.flush();
  return spans;
}

const idOf = (s: ReadableSpan): string => s.spanContext().spanId;
const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
const attr = (s: ReadableSpan, k: string): unknown => s.attributes[k];
const ms = (t: ReadableSpan['startTime']): number => hrTimeToMilliseconds(t);

function byAttr(spans: ReadableSpan[], k: string, v: unknown): ReadableSpan[] {
  return spans.filter((s) => attr(s, k) === v);
}

function one(spans: ReadableSpan[], pred: (s: ReadableSpan) => boolean, what: string): ReadableSpan {
  const found = spans.filter(pred);
  if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length}`);
  return found[0]!;
}

describe('OtlpSpanFolder on the synthetic scenario', () => {
  const events = scenario().events;
  const spans = fold(events);
  const run = (id: string): ReadableSpan =>
    one(spans, (s) => s.name === 'invoke_agent rlm' && attr(s, 'gen_ai.agent.id') === id, `run ${id}`);
  const block = (runId: string, it: number, b: number): ReadableSpan =>
    one(spans, (s) => attr(s, 'gen_ai.tool.call.id') === `${runId}/${it}/${b}`, `block ${runId}/${it}/${b}`);
  const subcall = (callId: string): ReadableSpan =>
    one(spans, (s) => attr(s, 'rlm.call_id') === callId && s.name.startsWith('chat '), `sub-call ${callId}`);

  it('makes one trace per root run with the run as its only root', () => {
    // root0: run, 3 requests, 4 blocks, 3 batched calls; 2 children with a request and a block each, one leaf call. root1: run, 3 turns and the final answer.
    expect(spans).toHaveLength(18 + 5);
    const traces = new Map<string, ReadableSpan[]>();
    for (const s of spans) traces.set(s.spanContext().traceId, [...(traces.get(s.spanContext().traceId) ?? []), s]);
    expect([...traces.values()].map((t) => t.length).sort()).toEqual([18, 5]);
    for (const t of traces.values()) {
      const roots = t.filter((s) => parentOf(s) === undefined);
      expect(roots.map((s) => s.name)).toEqual(['invoke_agent rlm']);
      const ids = new Set(t.map(idOf));
      expect(t.every((s) => parentOf(s) === undefined || ids.has(parentOf(s)!))).toBe(true);
    }
    expect(run('root0').spanContext().traceId).toBe(traceIdOf('S', 'root0'));
    expect(run('root1').spanContext().traceId).toBe(traceIdOf('S', 'root1'));
    expect(new Set(spans.map(idOf)).size).toBe(spans.length);
  });

  it('hangs requests and blocks under their run, calls under their block, child runs under the spawning block', () => {
    const root0 = run('root0');
    expect(
      byAttr(spans, 'rlm.run_id', 'root0')
        .filter((s) => s.name === 'chat m' && attr(s, 'rlm.purpose') === 'turn')
        .map(parentOf),
    ).toEqual([idOf(root0), idOf(root0), idOf(root0)]);
    expect(parentOf(block('root0', 1, 0))).toBe(idOf(root0));
    for (const c of ['b0', 'b1', 'b2']) expect(parentOf(subcall(c))).toBe(idOf(block('root0', 1, 1)));
    for (const c of ['root0/c1', 'root0/c2']) {
      expect(parentOf(run(c))).toBe(idOf(block('root0', 2, 0)));
      expect(parentOf(block(c, 1, 0))).toBe(idOf(run(c)));
    }
    expect(parentOf(subcall('leaf1'))).toBe(idOf(block('root0/c2', 1, 0)));
    // A sub-call that spawned a child run is the child's agent span, not a span of its own.
    expect(spans.some((s) => attr(s, 'rlm.call_id') === 'k1' && s.name.startsWith('chat '))).toBe(false);
    expect(attr(run('root0/c1'), 'rlm.call_id')).toBe('k1');
    expect(idOf(root0)).toBe(runSpanIdOf('S', 'root0'));
  });

  it('names the GenAI operations and carries models, usage and outcomes', () => {
    const root0 = run('root0');
    expect(root0.kind).toBe(SpanKind.INTERNAL);
    expect(root0.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'rlm',
      'gen_ai.request.model': 'm',
      'gen_ai.provider.name': 'openai',
      'gen_ai.conversation.id': 'S',
      'rlm.depth': 0,
      'rlm.stop_reason': 'answered',
      'rlm.iterations': 3,
    });
    expect(attr(run('root0/c1'), 'rlm.depth')).toBe(1);
    const turn = one(
      spans,
      (s) => attr(s, 'rlm.run_id') === 'root0' && attr(s, 'rlm.iteration') === 1 && attr(s, 'rlm.purpose') === 'turn',
      'first request',
    );
    expect(turn.kind).toBe(SpanKind.CLIENT);
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.response.model': 'm',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 10,
      'rlm.cost_usd': 0.001,
    });
    expect(subcall('b0').attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 20,
      'rlm.batch.id': 'B',
      'rlm.batch.index': 0,
      'rlm.batch.size': 3,
      'rlm.depth': 1,
    });
    expect(subcall('leaf1').attributes).toMatchObject({
      'rlm.subcall.kind': 'rlm',
      'rlm.subcall.leaf': true,
      'gen_ai.usage.input_tokens': 7,
    });
    const failed = block('root0', 1, 0);
    expect(failed.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'repl',
      'error.type': 'ReferenceError',
    });
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom is not defined' });
    expect(block('root0', 1, 1).status.code).toBe(SpanStatusCode.UNSET);
    const final = one(spans, (s) => attr(s, 'rlm.purpose') === 'final_answer', 'final answer request');
    expect(parentOf(final)).toBe(idOf(run('root1')));
    expect(attr(run('root1'), 'rlm.stop_reason')).toBe('max_iterations');
    expect(run('root1').events.map((e) => [e.name, e.attributes?.['rlm.limit']])).toEqual([['rlm.limit', 'max_iterations']]);
  });

  it('spans the recorded times: events for starts and ends, latencies for requests and calls', () => {
    const at = (type: string, pred: (e: TrajectoryEvent) => boolean): number => ORIGIN + events.find((e) => e.type === type && pred(e))!.t;
    const root0 = run('root0');
    expect(ms(root0.startTime)).toBe(at('run.start', (e) => e.runId === 'root0'));
    expect(ms(root0.endTime)).toBe(at('run.end', (e) => e.runId === 'root0'));
    const turn = one(
      spans,
      (s) => attr(s, 'rlm.run_id') === 'root0' && attr(s, 'rlm.iteration') === 1 && attr(s, 'rlm.purpose') === 'turn',
      'first request',
    );
    const replyT = at('model.reply', (e) => e.runId === 'root0' && e.type === 'model.reply' && e.iteration === 1);
    expect(ms(turn.endTime)).toBe(replyT);
    expect(ms(turn.startTime)).toBe(replyT - 50);
    const b0End = at('subcall.end', (e) => e.type === 'subcall.end' && e.callId === 'b0');
    expect(ms(subcall('b0').endTime)).toBe(b0End);
    // Its recorded latency (35) is longer than the call was open: the span starts when the call was made, never before.
    expect(ms(subcall('b0').startTime)).toBe(at('subcall.start', (e) => e.type === 'subcall.start' && e.callId === 'b0'));
    const blk = block('root0', 2, 0);
    expect(ms(blk.startTime)).toBe(at('block.start', (e) => e.type === 'block.start' && e.runId === 'root0' && e.iteration === 2));
    expect(ms(blk.endTime)).toBe(at('block.end', (e) => e.type === 'block.end' && e.runId === 'root0' && e.iteration === 2));
    for (const s of spans) expect(ms(s.endTime)).toBeGreaterThanOrEqual(ms(s.startTime));
  });

  it('derives the same ids every time, and other ids for another session', () => {
    const again = fold(events);
    expect(again.map(idOf)).toEqual(spans.map(idOf));
    expect(again.map((s) => s.spanContext().traceId)).toEqual(spans.map((s) => s.spanContext().traceId));
    const other = fold(events, 'T');
    expect(other.some((s) => spans.some((t) => idOf(t) === idOf(s)))).toBe(false);
  });

  it('puts the exact messages of each request on its span, and nothing of the content without it', () => {
    const sent: string[] = [];
    const calls = new ModelCallFolder({
      call: (c) =>
        void (
          c.callId === null &&
          sent.push(JSON.stringify(c.messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] }))))
        ),
    });
    for (const e of events) calls.push(e);
    const own = spans
      .filter((s) => s.name === 'chat m' && attr(s, 'rlm.purpose') !== 'subcall')
      .sort((a, b) => ms(a.endTime) - ms(b.endTime));
    expect(own.map((s) => attr(s, 'gen_ai.input.messages')).sort()).toEqual([...sent].sort());
    expect(JSON.parse(attr(subcall('b0'), 'gen_ai.output.messages') as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'answer of b0' }], finish_reason: 'stop' },
    ]);
    expect(attr(block('root0', 1, 0), 'gen_ai.tool.call.arguments')).toBe('boom()');

    const bare = fold(events, 'S', false);
    const contentKeys = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'];
    expect(bare.flatMap((s) => Object.keys(s.attributes)).filter((k) => contentKeys.includes(k))).toEqual([]);
    expect(bare.map(idOf)).toEqual(spans.map(idOf));
  });

  it('ends what a cut-short log left open, marked unfinished', () => {
    const cut = events.findIndex((e) => e.type === 'run.start' && e.runId === 'root0/c2') + 5;
    const partial = fold(events.slice(0, cut));
    const unfinished = partial.filter((s) => attr(s, 'rlm.unfinished') === true).map((s) => s.name);
    // Cut after both children's first replies: root0, its iteration-2 block and both children are open
    // (the sub-calls that spawned the children are the children's spans).
    expect(unfinished.sort()).toEqual(['execute_tool repl', 'invoke_agent rlm', 'invoke_agent rlm', 'invoke_agent rlm']);
    expect(partial.filter((s) => attr(s, 'rlm.purpose') === 'turn' && String(attr(s, 'rlm.run_id')).startsWith('root0/c'))).toHaveLength(2);
    const lastT = ORIGIN + events[cut - 1]!.t;
    for (const s of partial.filter((x) => attr(x, 'rlm.unfinished') === true)) expect(ms(s.endTime)).toBe(lastT);
  });

  it('encodes as one OTLP/JSON ExportTraceServiceRequest', () => {
    const req = JSON.parse(otlpJson(spans)) as {
      resourceSpans: {
        resource: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans: { scope: { name: string }; spans: { traceId: string; spanId: string; startTimeUnixNano: string }[] }[];
      }[];
    };
    expect(req.resourceSpans).toHaveLength(1);
    expect(req.resourceSpans[0]!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'rlm-studio' } });
    const out = req.resourceSpans[0]!.scopeSpans.flatMap((s) => s.spans);
    expect(out).toHaveLength(spans.length);
    expect(out[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(out[0]!.spanId).toMatch(/^[0-9a-f]{16}$/);
    const [sec, ns] = spans[0]!.startTime;
    expect(BigInt(out[0]!.startTimeUnixNano)).toBe(BigInt(sec) * 1_000_000_000n + BigInt(ns));
    expect(Number(BigInt(out[0]!.startTimeUnixNano) / 1_000_000n)).toBe(Math.floor(ms(spans[0]!.startTime)));
  });
});

describe('OtlpSpanFolder on a reference log with child runs', () => {
  it('maps c_recursive: 4 runs, 13 requests, 13 blocks, 6 plain calls, 3 child runs under their blocks', async () => {
    const events: TrajectoryEvent[] = [];
    await readEvents(join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), (e) => events.push(e));
    const spans = fold(events, 'c_recursive.jsonl');
    const runs = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent');
    const blocks = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool');
    const chats = spans.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
    expect(runs).toHaveLength(4);
    expect(blocks).toHaveLength(13);
    expect(chats.filter((s) => attr(s, 'rlm.purpose') !== 'subcall')).toHaveLength(13);
    expect(chats.filter((s) => attr(s, 'rlm.purpose') === 'subcall')).toHaveLength(6);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const byId = new Map(spans.map((s) => [idOf(s), s]));
    const children = runs.filter((s) => parentOf(s) !== undefined);
    expect(children).toHaveLength(3);
    for (const c of children) {
      const parent = byId.get(parentOf(c)!)!;
      expect(parent.name).toBe('execute_tool repl');
      expect(attr(parent, 'rlm.run_id')).toBe('r0');
      // The child ran inside the block that spawned it.
      expect(ms(c.startTime)).toBeGreaterThanOrEqual(ms(parent.startTime));
      expect(ms(c.endTime)).toBeLessThanOrEqual(ms(parent.endTime));
      expect(attr(c, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0);
    }
    expect(spans.every((s) => parentOf(s) === undefined || byId.has(parentOf(s)!))).toBe(true);
    expect(spans.some((s) => attr(s, 'rlm.unfinished') === true)).toBe(false);
  });
});
