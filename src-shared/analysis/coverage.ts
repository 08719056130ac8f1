// The context coverage map: which character spans of a session's context each model saw.
// A run's own model saw the context text that appears in the REPL output shown to it (as
// shown: long outputs are cut per block, and the output of a run's last turn reaches no
// model); a sub-LM saw its `llm_query` prompt; a child run was given its prompt as its
// context. Matching is by exact copy (`anchor-index.ts`), so both log formats work alike.
import type { CallId, RunId } from '../events.ts';
import { blocksOf, walkRuns } from '../trajectory/reducer.ts';
import type { IterationNode, RunNode, TrajectoryState } from '../trajectory/types.ts';
import { AnchorIndex, MIN_SPAN_CHARS } from './anchor-index.ts';
import { complementRanges, coveredChars, mergeRanges, type Range } from './intervals.ts';
import { OUTPUT_CAP_CHARS } from '../output-cap.ts';

/** Who got a span: the run's own model (its REPL output), a plain sub-call, a child run. */
export type CoverageRole = 'root' | 'subcall' | 'child';

/** One text a model saw (or a child run was given), with where it happened. */
export interface CoverageSource {
  role: CoverageRole;
  /** The run whose model saw the output, or whose code made the call. */
  runId: RunId;
  iteration: number;
  /** Null for a run's direct call (maxDepth 0: the context sent in the prompt). */
  block: number | null;
  callId: CallId | null;
  childRunId: RunId | null;
  text: string;
}

export interface CoverageSpan extends Range {
  role: CoverageRole;
  runId: RunId;
  iteration: number;
  block: number | null;
  callId: CallId | null;
  childRunId: RunId | null;
}

export interface CoverageFigures {
  contextChars: number;
  /** Seen by the run's own model in its REPL output (for the session: the root runs' models). */
  seenByRootChars: number;
  /** In the prompts of plain sub-calls (for a run: its own calls; for the session: all). */
  sentToSubcallsChars: number;
  /** In child runs' contexts (for a run: its children's; for the session: every child's). */
  sentToChildrenChars: number;
  /** Seen by some model: a REPL output shown at any depth, or a sub-call prompt. */
  seenChars: number;
  /** Seen by no model (within the run's subtree for a run). */
  unseenChars: number;
}

interface RunCoverage extends CoverageFigures {
  runId: RunId;
  parentRunId: RunId | null;
  depth: number;
}

export interface CoverageReport {
  /** Copies shorter than this are not counted (see anchor-index.ts for why). */
  minSpanChars: number;
  session: CoverageFigures;
  runs: RunCoverage[];
  /** Every copy found, by source, in source order. */
  spans: CoverageSpan[];
  /** What no model saw, in context order. */
  unseen: Range[];
}

const PROBE_CHARS = 64;

/** The REPL-output message(s) the next model call got after this iteration, when recorded. */
function shownMessage(it: IterationNode): string | null {
  const users = it.end?.appended.filter((m) => m.role === 'user') ?? [];
  return users.length > 0 ? users.map((m) => m.content).join('\n') : null;
}

/** Whether a model call of the run came after this iteration (so its output was shown). */
function outputDelivered(run: RunNode, index: number): boolean {
  for (let i = index + 1; i < run.iterations.length; i++) {
    const it = run.iterations[i]!;
    if (it.start || it.reply || it.modelErrors.length > 0 || it.compactionReplies.length > 0) return true;
  }
  return false;
}

/**
 * The part of `text` (a block's stdout or stderr) the model was shown: the prefix that appears
 * in the recorded message at or after `cursor`, or the capped prefix when no message is recorded.
 */
function shownPart(text: string, message: string | null, state: { cursor: number; budget: number }): string {
  if (text.length === 0) return '';
  if (message === null) {
    const part = text.slice(0, Math.max(0, state.budget));
    state.budget -= part.length;
    return part;
  }
  const probe = text.slice(0, PROBE_CHARS).replace(/\n+$/, '');
  if (probe.length === 0) return '';
  const at = message.indexOf(probe, state.cursor);
  if (at < 0) return '';
  let n = 0;
  while (n < text.length && at + n < message.length && text.charCodeAt(n) === message.charCodeAt(at + n)) n++;
  state.cursor = at + n;
  return text.slice(0, n);
}

function runSources(run: RunNode, out: CoverageSource[]): void {
  run.iterations.forEach((it, index) => {
    if (it.reply?.purpose === 'direct') {
      for (const m of run.start?.messages ?? []) {
        if (m.role === 'user')
          out.push({ role: 'root', runId: run.id, iteration: it.iteration, block: null, callId: null, childRunId: null, text: m.content });
      }
      return;
    }
    if (!outputDelivered(run, index)) return;
    const message = shownMessage(it);
    const place = { cursor: 0, budget: 0 };
    for (const b of blocksOf(it)) {
      if (!b.end) continue;
      place.budget = OUTPUT_CAP_CHARS;
      for (const text of [shownPart(b.end.stdout, message, place), shownPart(b.end.stderr, message, place)]) {
        if (text.length > 0)
          out.push({ role: 'root', runId: run.id, iteration: it.iteration, block: b.block, callId: null, childRunId: null, text });
      }
    }
  });
}

/** Every text of the session that might carry context: shown outputs, sub-call prompts, child contexts. */
export function coverageSources(state: TrajectoryState): CoverageSource[] {
  const out: CoverageSource[] = [];
  for (const run of walkRuns(state)) runSources(run, out);
  for (const call of state.calls.values()) {
    const s = call.start;
    out.push({
      role: s.childRunId ? 'child' : 'subcall',
      runId: call.runId,
      iteration: call.iteration,
      block: call.block,
      callId: call.id,
      childRunId: s.childRunId,
      text: s.prompt,
    });
  }
  return out;
}

/** The runs a report has rows for, parents before children. */
export interface CoverageRun {
  runId: RunId;
  parentRunId: RunId | null;
  depth: number;
}

export function coverageRuns(state: TrajectoryState): CoverageRun[] {
  return [...walkRuns(state)].map((r) => ({ runId: r.id, parentRunId: r.parentRunId, depth: r.depth }));
}

const ESCAPE = /\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([nrtbfv0"'\\/]))/g;
const SIMPLE: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', '0': '\0' };

/**
 * `text` with its string escapes undone: what the code printed through `JSON.stringify` or
 * Python's `repr` (`\n`, `\t`, `\"`, `\'`, `\\`, `\uXXXX`, `\xNN`) read as the characters
 * the model saw in them; null when it has none.
 */
export function unescapedPrintout(text: string): string | null {
  if (!text.includes('\\')) return null;
  const out = text.replace(ESCAPE, (all: string, u?: string, x?: string, c?: string) =>
    u !== undefined
      ? String.fromCharCode(parseInt(u, 16))
      : x !== undefined
        ? String.fromCharCode(parseInt(x, 16))
        : c !== undefined
          ? (SIMPLE[c] ?? c)
          : all,
  );
  return out === text ? null : out;
}

/**
 * Finds the copies of the context in one source: as it is, and (for a text with string
 * escapes, such as a printed JSON or repr of context text) with its escapes undone, so what
 * a model read escaped counts as seen.
 */
export function sourceSpans(index: AnchorIndex, source: CoverageSource): CoverageSpan[] {
  const { role, runId, iteration, block, callId, childRunId } = source;
  const found = index.find(source.text).map((c) => ({ start: c.contextStart, end: c.contextStart + (c.textEnd - c.textStart) }));
  const plain = role === 'root' ? unescapedPrintout(source.text) : null;
  if (plain !== null) {
    const known = new Set(found.map((r) => `${r.start}:${r.end}`));
    for (const c of index.find(plain)) {
      const r = { start: c.contextStart, end: c.contextStart + (c.textEnd - c.textStart) };
      if (!known.has(`${r.start}:${r.end}`)) found.push(r);
    }
  }
  return found.map((r) => ({ ...r, role, runId, iteration, block, callId, childRunId }));
}

/**
 * The largest stretches no model saw, longest first, without the trivial ones: gaps shorter
 * than a countable copy (the line breaks between printed lines) or of whitespace only.
 */
export function largestUnseen(unseen: readonly Range[], context: string, n: number): Range[] {
  return unseen
    .filter((u) => u.end - u.start >= MIN_SPAN_CHARS && /\S/.test(context.slice(u.start, u.end)))
    .sort((a, b) => b.end - b.start - (a.end - a.start))
    .slice(0, n);
}

function figures(contextChars: number, root: Range[], sub: Range[], child: Range[], seen: Range[]): CoverageFigures {
  const seenMerged = mergeRanges(seen);
  const seenChars = coveredChars(seenMerged);
  return {
    contextChars,
    seenByRootChars: coveredChars(mergeRanges(root)),
    sentToSubcallsChars: coveredChars(mergeRanges(sub)),
    sentToChildrenChars: coveredChars(mergeRanges(child)),
    seenChars,
    unseenChars: contextChars - seenChars,
  };
}

/** Figures per run and for the session from the spans found. */
export function summarizeCoverage(contextChars: number, runs: readonly CoverageRun[], spans: CoverageSpan[]): CoverageReport {
  const byRun = new Map<RunId, { root: Range[]; sub: Range[]; child: Range[] }>();
  const of = (id: RunId) => {
    let r = byRun.get(id);
    if (!r) byRun.set(id, (r = { root: [], sub: [], child: [] }));
    return r;
  };
  for (const s of spans) of(s.runId)[s.role === 'root' ? 'root' : s.role === 'subcall' ? 'sub' : 'child'].push(s);
  const children = new Map<RunId, RunId[]>();
  for (const r of runs) if (r.parentRunId !== null) children.set(r.parentRunId, [...(children.get(r.parentRunId) ?? []), r.runId]);
  const subtreeSeen = (id: RunId, acc: Range[], guard: Set<RunId>): Range[] => {
    if (guard.has(id)) return acc;
    guard.add(id);
    const own = byRun.get(id);
    if (own) acc.push(...own.root, ...own.sub);
    for (const c of children.get(id) ?? []) subtreeSeen(c, acc, guard);
    return acc;
  };
  const runRows: RunCoverage[] = runs.map((r) => {
    const own = of(r.runId);
    return {
      runId: r.runId,
      parentRunId: r.parentRunId,
      depth: r.depth,
      ...figures(contextChars, own.root, own.sub, own.child, subtreeSeen(r.runId, [], new Set())),
    };
  });
  const depth0 = new Set(runs.filter((r) => r.parentRunId === null).map((r) => r.runId));
  const root = spans.filter((s) => s.role === 'root' && depth0.has(s.runId));
  const sub = spans.filter((s) => s.role === 'subcall');
  const child = spans.filter((s) => s.role === 'child');
  const seen = spans.filter((s) => s.role !== 'child');
  return {
    minSpanChars: MIN_SPAN_CHARS,
    session: figures(contextChars, root, sub, child, seen),
    runs: runRows,
    spans,
    unseen: complementRanges(mergeRanges(seen), contextChars),
  };
}

/** The whole computation for a session held in memory. */
export function computeCoverage(context: string, state: TrajectoryState): CoverageReport {
  const index = new AnchorIndex(context);
  const spans = coverageSources(state).flatMap((s) => sourceSpans(index, s));
  return summarizeCoverage(context.length, coverageRuns(state), spans);
}
