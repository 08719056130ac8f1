import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asSessionId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { exportRlmPython } from '../../../src-shared/codecs/rlm-python-export.ts';
import { formatPyTimestamp, parsePyTimestamp } from '../../../src-shared/codecs/rlm-python-format.ts';
import { errorFromStderr } from '../../../src-shared/codecs/rlm-python-entries.ts';
import { readRlmPythonText, RlmPythonReader } from '../../../src-shared/codecs/rlm-python-import.ts';
import { encodeNative, readNativeText } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { detectFormat } from '../../../src-shared/codecs/detect.ts';
import { blocksOf, reduceEvents, walkRuns } from '../../../src-shared/trajectory/reducer.ts';
import { logStats, StatsAccumulator, type LogStats } from '../../../src-shared/trajectory/log-stats.ts';
import type { TrajectoryState } from '../../../src-shared/trajectory/types.ts';
import { scenario } from '../trajectory/synthetic.ts';
import { chunks, flipBytes, rng } from './fuzz.ts';
import { README_COUNTS, REFERENCE_FIXTURES as FIXTURES } from '../../support/reference-fixtures.ts';

const read = (name: string): string => readFileSync(join(FIXTURES, `${name}.jsonl`), 'utf8');

type J = Record<string, unknown>;
/** Counts straight from the raw JSON, independently of the importer. */
function countRaw(text: string): Omit<LogStats, 'byModel'> {
  let priced = false;
  const c: Omit<LogStats, 'byModel' | 'costUsd'> & { costUsd: number } = {
    sessions: 0,
    runs: 0,
    maxDepth: 0,
    iterations: 0,
    codeBlocks: 0,
    llmCalls: 0,
    rlmCalls: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    retries: 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    cutReplies: 0,
    wallMs: 0,
  };
  const usage = (u: J): void => {
    for (const m of Object.values((u['model_usage_summaries'] ?? {}) as Record<string, J>)) {
      c.inputTokens += m['total_input_tokens'] as number;
      c.outputTokens += m['total_output_tokens'] as number;
    }
    const cost = u['total_cost'] as number | undefined;
    if (cost !== undefined) priced = true;
    c.costUsd += cost ?? 0;
  };
  const walk = (iters: J[], depth: number): void => {
    c.maxDepth = Math.max(c.maxDepth, depth);
    for (const it of iters) {
      c.iterations++;
      for (const b of it['code_blocks'] as J[]) {
        c.codeBlocks++;
        const r = b['result'] as J;
        if ((r['stderr'] as string).trim() !== '') c.errors++;
        for (const call of r['rlm_calls'] as J[]) {
          usage(call['usage_summary'] as J);
          const meta = call['metadata'] as J | undefined;
          if (meta) {
            c.rlmCalls++;
            c.runs++;
            walk(meta['iterations'] as J[], depth + 1);
          } else c.llmCalls++;
        }
      }
    }
  };
  let last = Infinity;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const o = JSON.parse(line) as J;
    if (o['type'] === 'metadata') continue;
    if ((o['iteration'] as number) <= last) {
      c.sessions++;
      c.runs++;
    }
    last = o['iteration'] as number;
    walk([o], 0);
  }
  // The root's replies never carry a price in these logs: with no priced sub-call the cost is unknown.
  return { ...c, costUsd: priced ? Math.round(c.costUsd * 1e6) / 1e6 : null };
}

function importText(text: string): {
  events: TrajectoryEvent[];
  state: TrajectoryState;
  problems: ReturnType<typeof readRlmPythonText>['problems'];
} {
  const r = readRlmPythonText(text);
  return { events: r.events, state: reduceEvents(r.events), problems: r.problems };
}

describe('reference-library import: floats that are not finite', () => {
  it('opens a log whose locals hold NaN or an infinity (json.dump writes them bare); the line was skipped', () => {
    const text = read('a_needle').replace('"locals": {', '"locals": {"score": NaN, "worst": [-Infinity, Infinity], ');
    expect(text).toContain('NaN');
    const { problems, state } = importText(text);
    expect(problems).toEqual([]);
    expect(importText(read('a_needle')).state.runs.size).toBe(state.runs.size);
    const blocks = [...state.runs.values()].flatMap((run) => run.iterations.flatMap((it) => blocksOf(it)));
    expect(blocks.length).toBe(README_COUNTS['a_needle']![3]);
    expect(blocks.find((b) => b.end?.locals?.['score'] !== undefined)?.end?.locals).toMatchObject({ score: 'nan', worst: ['-inf', 'inf'] });
  });
});

describe('reference-library import: the shared fixtures', () => {
  for (const [name, [runs, maxDepth, iterations, codeBlocks, leaf, children]] of Object.entries(README_COUNTS)) {
    it(`${name}: counts match the README and the file itself`, () => {
      const text = read(name);
      expect(detectFormat(text.slice(0, 8192))).toBe('rlm-python');
      const { events, state, problems } = importText(text);
      expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(state.problems).toEqual([]);
      const stats = logStats(state);
      expect([stats.runs, stats.maxDepth, stats.iterations, stats.codeBlocks, stats.llmCalls, stats.rlmCalls]).toEqual([
        runs,
        maxDepth,
        iterations,
        codeBlocks,
        leaf,
        children,
      ]);
      const raw = countRaw(text);
      const { byModel, ...numbers } = stats;
      expect({ ...numbers, wallMs: 0 }).toEqual({ ...raw, wallMs: 0 });
      // Per model: the models add up to the totals.
      expect(Object.values(byModel).reduce((n, m) => n + m.inputTokens, 0)).toBe(stats.inputTokens);
      expect(Object.values(byModel).reduce((n, m) => n + m.outputTokens, 0)).toBe(stats.outputTokens);
      expect(stats.sessions).toBe(1);
      // The streaming stats give the same numbers as the tree.
      const acc = new StatsAccumulator();
      for (const e of events) acc.push(e);
      expect(acc.result()).toEqual(stats);
      // Envelope invariants: seq 0..n-1, t monotonic, every run closed.
      events.forEach((e, i) => expect(e.seq).toBe(i));
      for (let i = 1; i < events.length; i++)
        expect((events[i] as TrajectoryEvent).t).toBeGreaterThanOrEqual((events[i - 1] as TrajectoryEvent).t);
      for (const run of walkRuns(state)) {
        expect(run.start).not.toBeNull();
        expect(run.end).not.toBeNull();
      }
      expect(stats.wallMs).toBeGreaterThan(0);
    });
  }

  it('every import takes well under a second (2.5 MB fixture included)', () => {
    for (const name of Object.keys(README_COUNTS)) {
      const text = read(name);
      const t0 = performance.now();
      readRlmPythonText(text);
      expect(performance.now() - t0).toBeLessThan(1000);
    }
  });

  it('c_recursive: child runs with their own ids, parents, spawn places, prompts rebuilt per turn', () => {
    const { state } = importText(read('c_recursive'));
    const root = state.runs.get(state.roots[0] as never);
    if (!root) throw new Error('no root');
    expect(root.children).toHaveLength(3);
    const [first, second, third] = root.children.map((id) => state.runs.get(id));
    expect(first?.spawnedBy).toMatchObject({ runId: root.id, iteration: 2, block: 0 });
    expect(second?.spawnedBy).toMatchObject({ runId: root.id, iteration: 3, block: 0 });
    expect(third?.spawnedBy).toMatchObject({ runId: root.id, iteration: 3, block: 0 });
    expect(first?.parentRunId).toBe(root.id);
    expect(first?.depth).toBe(1);
    expect(first?.end?.answer).toBe('11');
    expect(first?.start?.context.totalChars).toBeGreaterThan(1000);
    // The child's logged prompts are all its final history (RLM-SPEC Q4); we rebuild each turn.
    expect(first?.iterations.map((i) => i.start?.historyLength)).toEqual([3, 6, 9]);
    expect(first?.iterations.map((i) => i.start?.appended.map((m) => m.role))).toEqual([['user'], ['user'], ['user']]);
    expect(first?.iterations[1]?.start?.appended[0]?.content).toBe('Turn 2/8:');
    expect(first?.iterations[0]?.end?.appended.map((m) => m.role)).toEqual(['assistant', 'user']);
    // Usage: the child's usage_summary is spread over its replies; leaf calls carry their own.
    const replies = first?.iterations.map((i) => i.reply?.usage.inputTokens ?? 0) ?? [];
    expect(replies.reduce((a, b) => a + b, 0)).toBe(4652);
    const leafCalls = blocksOf(first?.iterations[1] as never).flatMap((b) => b.calls.map((id) => state.calls.get(id)));
    expect(leafCalls.map((c) => c?.start.kind)).toEqual(['llm', 'llm']);
    expect(leafCalls.map((c) => c?.end?.usage.inputTokens)).toEqual([59, 20]);
    // Root turns: usage not logged by the reference → zero tokens, unknown cost.
    expect(root.iterations[0]?.reply?.usage).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: null });
    expect(root.end?.answer).toBe('search with 16 ERROR lines');
    expect(root.end?.stopReason).toBe('answered');
    expect(root.start?.query).toBe('Which service section of the log has the most ERROR lines, and how many?');
  });

  it('d_max_iterations: the default-answer entry becomes a limit and a final_answer reply', () => {
    const { events, state } = importText(read('d_max_iterations'));
    const root = state.runs.get(state.roots[0] as never);
    expect(root?.iterations.map((i) => i.iteration)).toEqual([1, 2, 3, 4]);
    expect(root?.iterations[3]?.reply?.purpose).toBe('final_answer');
    expect(root?.iterations[3]?.start).toBeNull();
    expect(events.filter((e) => e.type === 'limit')).toHaveLength(1);
    expect(root?.end?.stopReason).toBe('max_iterations');
    expect(root?.end?.answer).toMatch(/^Based on the passages I inspected/);
    expect(root?.end?.iterations).toBe(3);
  });

  it('e_code_errors: errors from stderr, with the Python exception name', () => {
    const { state } = importText(read('e_code_errors'));
    const root = state.runs.get(state.roots[0] as never);
    const errs = root?.iterations.flatMap((i) => blocksOf(i)).map((b) => b.end?.error?.name ?? null);
    expect(errs).toEqual(['TypeError', 'KeyError', null, null]);
    expect(root?.start?.context.type).toBe('object');
  });

  it('b_aggregate and g_openai_http: costs present', () => {
    expect(logStats(importText(read('b_aggregate')).state).costUsd).toBeCloseTo(7 * 0.003176 + 0.003184, 6);
    expect(logStats(importText(read('g_openai_http')).state).costUsd).toBeCloseTo(0.000086, 9);
  });

  it("paper-era logs: turn prompts sent with one call only are the replies' transient messages", () => {
    const r = readRlmPythonText(read('paper-8467a58/c_recursive'));
    const s = reduceEvents(r.events);
    const root = s.runs.get(s.roots[0] as never);
    expect(root?.iterations.map((i) => i.start?.appended.length)).toEqual(root?.iterations.map(() => 0));
    expect(root?.iterations.every((i) => i.reply?.transient?.length === 1 && i.reply.transient[0]!.role === 'user')).toBe(true);
    const child = s.runs.get(s.runs.get(s.roots[0] as never)?.children[0] as never);
    expect(child?.iterations.map((i) => [i.start?.appended.length, i.reply?.transient?.length])).toEqual([
      [0, 1],
      [0, 1],
      [0, 1],
    ]);
  });

  it('several completions in one file (persistent multi-turn): one root run per completion', () => {
    const a = read('a_needle').trimEnd().split('\n');
    const d = read('d_max_iterations').trimEnd().split('\n');
    const text = [...a, ...d.slice(1), ...a.slice(1)].join('\n');
    const { state } = importText(text);
    expect(state.roots).toHaveLength(3);
    expect(state.roots.map((id) => state.runs.get(id)?.turn)).toEqual([0, 1, 2]);
    const stats = logStats(state);
    expect(stats).toMatchObject({ sessions: 3, runs: 3, iterations: 3 + 4 + 3, codeBlocks: 4 + 2 + 4 });
  });

  it('chunked input gives the same events as whole text', () => {
    const text = read('c_recursive');
    const whole = readRlmPythonText(text).events;
    const reader = new RlmPythonReader();
    const got: TrajectoryEvent[] = [];
    for (const c of chunks(text, rng(3), 5000)) for (const i of reader.push(c)) if (i.kind === 'event') got.push(i.event);
    for (const i of reader.end()) if (i.kind === 'event') got.push(i.event);
    expect(got).toEqual(whole);
  });
});

describe('reference-library import: damaged input', () => {
  it('cut every few hundred bytes: no crash, partial results, the cut named', () => {
    const text = read('c_recursive');
    for (let cut = 0; cut < text.length; cut += 997) {
      const r = readRlmPythonText(text.slice(0, cut));
      expect(r.events.length + r.problems.length).toBeGreaterThan(0);
      if (cut > 0 && text[cut - 1] !== '\n') expect(r.problems.some((p) => /cut off/.test(p.message))).toBe(true);
      expect(reduceEvents(r.events).problems).toEqual([]);
    }
  });

  it('random byte flips: never throws; problems name lines', () => {
    const text = read('d_max_iterations');
    const rand = rng(11);
    for (let round = 0; round < 100; round++) {
      const r = readRlmPythonText(flipBytes(text, 1 + Math.floor(rand() * 6), rand));
      for (const p of r.problems) expect(p.message.length).toBeGreaterThan(5);
      expect(() => reduceEvents(r.events)).not.toThrow();
    }
  });

  it('a non-iteration line is named and skipped', () => {
    const lines = read('a_needle').trimEnd().split('\n');
    lines.splice(2, 0, '{"type":"iteration","foo":1}', '[1,2]');
    const r = readRlmPythonText(lines.join('\n'));
    expect(r.problems.map((p) => p.line)).toEqual([3, 4]);
    expect(r.problems[0]?.message).toMatch(/missing or invalid `iteration`, `response`, `code_blocks`/);
    expect(logStats(reduceEvents(r.events)).iterations).toBe(3);
  });
});

describe('export to the reference format', () => {
  it('fixtures survive import → export → import', () => {
    for (const name of Object.keys(README_COUNTS)) {
      const first = readRlmPythonText(read(name));
      const lines = exportRlmPython(first.events, makeHeader(asSessionId('x'), new Date(Date.UTC(2026, 11, 2, 9, 30))));
      const meta = JSON.parse(lines[0] as string) as J;
      expect(meta['type']).toBe('metadata');
      for (const l of lines.slice(1)) {
        const o = JSON.parse(l) as J;
        expect(Object.keys(o)).toEqual(
          expect.arrayContaining(['type', 'iteration', 'timestamp', 'prompt', 'response', 'code_blocks', 'final_answer', 'iteration_time']),
        );
      }
      const again = readRlmPythonText(lines.join(''));
      const a = logStats(reduceEvents(first.events));
      const b = logStats(reduceEvents(again.events));
      expect({ ...b, wallMs: 0 }).toEqual({ ...a, wallMs: 0 });
      expect(again.events.filter((e) => e.type === 'model.reply').map((e) => (e.type === 'model.reply' ? e.text : ''))).toEqual(
        first.events.filter((e) => e.type === 'model.reply').map((e) => (e.type === 'model.reply' ? e.text : '')),
      );
    }
  });

  it('keeps locals (short values), the REPL language and usage per model through import → export → import', () => {
    const localsOf = (events: TrajectoryEvent[]): unknown[] => events.flatMap((e) => (e.type === 'block.end' ? [e.locals] : []));
    for (const name of ['a_needle', 'b_aggregate', 'c_recursive', 'e_code_errors', 'g_openai_http']) {
      const text = read(name);
      const first = readRlmPythonText(text);
      const lines = exportRlmPython(first.events, makeHeader(asSessionId('x'), new Date(Date.UTC(2026, 11, 2, 9, 30))));
      const again = readRlmPythonText(lines.join(''));
      expect(localsOf(again.events)).toEqual(localsOf(first.events));
      // Every run is Python, and says so again after the round trip.
      expect(again.events.filter((e) => e.type === 'run.start').every((e) => e.type === 'run.start' && e.repl === 'python')).toBe(true);
      expect((JSON.parse(lines[0] as string) as J)['environment_type']).toBe('local');
      expect(logStats(reduceEvents(again.events)).byModel).toEqual(logStats(reduceEvents(first.events)).byModel);
      // The exported locals are the imported ones: the reference's names, short values whole.
      const rawBlocks = text
        .split('\n')
        .filter((l) => l.includes('"iteration"'))
        .flatMap((l) => ((JSON.parse(l) as J)['code_blocks'] as J[]).map((b) => (b['result'] as J)['locals'] as J));
      const outBlocks = lines
        .slice(1)
        .flatMap((l) => ((JSON.parse(l) as J)['code_blocks'] as J[]).map((b) => (b['result'] as J)['locals'] as J));
      expect(outBlocks.map((l) => Object.keys(l))).toEqual(rawBlocks.map((l) => Object.keys(l)));
      rawBlocks.forEach((raw, i) => {
        for (const [k, v] of Object.entries(raw)) {
          const kept = outBlocks[i]![k];
          if (JSON.stringify(v).length <= 200) expect(kept).toEqual(v);
          else expect(String(kept)).toMatch(/…$/);
        }
      });
    }
    const needle = readRlmPythonText(read('a_needle')).events.find((e) => e.type === 'block.end' && e.locals && 'hits' in e.locals);
    const locals = needle?.type === 'block.end' ? needle.locals! : {};
    expect(locals['answer']).toEqual({ content: '', ready: false });
    expect(typeof locals['i']).toBe('number');
    expect(String(locals['context'])).toHaveLength(201);
  });

  it('exports one usage_summary entry per model for a child run, and names the REPL', () => {
    const original = scenario().events;
    const lines = exportRlmPython(original, makeHeader(asSessionId('rt'), new Date(Date.UTC(2026, 0, 1)), undefined, 'python'));
    const meta = JSON.parse(lines[0] as string) as J;
    expect(meta['environment_type']).toBe('local');
    const it2 = JSON.parse(lines[2] as string) as J;
    const calls = ((it2['code_blocks'] as J[])[0]!['result'] as J)['rlm_calls'] as J[];
    // Child c2: its reply under its model (m), its leaf call under m-sub.
    expect(calls[1]!['usage_summary']).toEqual({
      model_usage_summaries: {
        m: { total_calls: 1, total_input_tokens: 50, total_output_tokens: 5, total_cost: 0.001 },
        'm-sub': { total_calls: 1, total_input_tokens: 7, total_output_tokens: 1, total_cost: 0.001 },
      },
      total_cost: 0.002,
    });
    const js = exportRlmPython(original, makeHeader(asSessionId('rt'), new Date(Date.UTC(2026, 0, 1)), undefined, 'javascript'));
    expect((JSON.parse(js[0] as string) as J)['environment_type']).toBe('javascript');
    const back = readRlmPythonText(js.join(''));
    expect(back.events.filter((e) => e.type === 'run.start').every((e) => e.type === 'run.start' && e.repl === 'javascript')).toBe(true);
  });

  it('keeps the prompt pack of each run through export → import (rlm_studio.prompts), root and child runs', () => {
    const pack = { name: 'reference-rlm-0.1.3', hash: '0123456789abcdef' };
    const original = scenario().events.map((e) => (e.type === 'run.start' ? { ...e, prompts: pack } : e));
    const lines = exportRlmPython(original, makeHeader(asSessionId('rt'), new Date(Date.UTC(2026, 0, 1)), undefined, 'python'));
    expect((JSON.parse(lines[0] as string) as J)['rlm_studio']).toEqual({ prompts: pack });
    const back = readRlmPythonText(lines.join(''));
    const starts = back.events.filter((e) => e.type === 'run.start');
    expect(starts.length).toBe(original.filter((e) => e.type === 'run.start').length);
    expect(starts.map((e) => (e.type === 'run.start' ? [e.depth, e.prompts] : null))).toEqual(starts.map((e) => [e.depth, pack]));
    // The reference's own logs name no pack.
    expect(readRlmPythonText(read('a_needle')).events.find((e) => e.type === 'run.start')).not.toHaveProperty('prompts');
  });

  it('native → rlm-python → native keeps what both formats carry', () => {
    const original = scenario().events;
    const header = makeHeader(asSessionId('rt'), new Date(Date.UTC(2026, 0, 1)));
    const py = exportRlmPython(original, header);
    const back = readRlmPythonText(py.join(''));
    expect(back.problems.filter((p) => p.severity === 'error')).toEqual([]);
    // And through the native writer/reader once more.
    const native = readNativeText([...encodeNative(header, back.events)].join(''));
    expect(native.problems).toEqual([]);
    const a = reduceEvents(original);
    const b = reduceEvents(native.events);
    const sa = logStats(a);
    const sb = logStats(b);
    expect({ ...sb, wallMs: 0 }).toEqual({ ...sa, wallMs: 0 });
    const shape = (s: TrajectoryState): unknown[] =>
      [...walkRuns(s)].map((r) => ({
        depth: r.depth,
        turn: r.turn,
        children: r.children.length,
        answer: r.end?.answer,
        stop: r.end?.stopReason,
        messages: r.start?.messages,
        iterations: r.iterations.map((it) => ({
          n: it.iteration,
          reply: it.reply?.text,
          purpose: it.reply?.purpose,
          usage: it.reply?.usage,
          latency: it.reply?.latencyMs,
          final: it.end?.finalAnswer ?? null,
          blocks: blocksOf(it).map((bl) => ({
            code: bl.start?.code,
            stdout: bl.end?.stdout,
            error: bl.end?.error?.name ?? null,
            submitted: bl.end?.submitted,
            ms: bl.end?.durationMs,
            calls: bl.calls.map((id) => {
              const c = s.calls.get(id);
              return {
                prompt: c?.start.prompt,
                response: c?.end?.response,
                batch: c?.start.batch,
                leaf: c?.start.leaf,
                child: c?.start.childRunId !== null,
                usage: c?.start.childRunId ? null : c?.end?.usage,
              };
            }),
          })),
        })),
      }));
    expect(shape(b)).toEqual(shape(a));
  });
});

describe('helpers', () => {
  it('timestamps and errors', () => {
    const ms = parsePyTimestamp('2026-12-02T09:30:59.155653');
    expect(ms).toBeCloseTo(Date.UTC(2026, 11, 2, 9, 30, 59) + 155.653, 3);
    expect(formatPyTimestamp(ms as number)).toBe('2026-12-02T09:30:59.155653');
    expect(parsePyTimestamp('nope')).toBeNull();
    expect(errorFromStderr("\nKeyError: 'order'")).toEqual({ name: 'KeyError', message: "'order'" });
    expect(errorFromStderr('Traceback...\n  File x\nzipfile.BadZipFile')).toEqual({
      name: 'Error',
      message: 'Traceback...\n  File x\nzipfile.BadZipFile',
    });
    expect(errorFromStderr('  ')).toBeNull();
  });
});
