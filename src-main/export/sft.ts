// Chat fine-tuning examples from trajectories: one example per model call, made of the
// messages that were actually sent and the reply that came back, so a model trained on them
// sees exactly what the recorded model saw. Trajectories (one completion: a root run and its
// descendants) are selected whole, by how they ended, by an evaluation's scores and by size;
// calls are selected by depth.
import { resolve } from 'node:path';
import { labelsOf, SESSION_TARGET, targetId, type LabelsState } from '../../src-shared/analysis/labels.ts';
import type { ChatMessage } from '../../src-shared/events.ts';
import { type ModelCall, ModelCallFolder, type TrajectoryEnd } from '../../src-shared/trajectory/model-calls.ts';
import { estimateTokens } from '../../src-shared/tokens.ts';
import { contentAsSent, splitThink } from '../../src-shared/think.ts';

/**
 * `openai`: `{"messages": [...]}`, OpenAI's fine-tuning format, also TRL's conversational
 * language-modelling type and Axolotl's `chat_template` default. `prompt-completion`: TRL's
 * conversational prompt-completion type (loss on the reply only). `sharegpt`:
 * `{"system", "conversations": [{"from": "human"|"gpt", "value"}]}`, as LLaMA-Factory and
 * Axolotl's sharegpt loader read it (strictly alternating turns: consecutive messages of one
 * role are joined by a blank line).
 */
export const SFT_FORMATS = ['openai', 'prompt-completion', 'sharegpt'] as const;
export type SftFormat = (typeof SFT_FORMATS)[number];

/**
 * What an example keeps of a reply's thinking: `drop` (default) the reply alone; `field` as
 * `reasoning_content` on the assistant message (what Qwen3's and DeepSeek's chat templates
 * render); `think` as a `<think>…</think>` section before the reply text.
 */
export const SFT_REASONING = ['drop', 'field', 'think'] as const;
export type SftReasoning = (typeof SFT_REASONING)[number];

export interface SftSelection {
  /** Keep only trajectories whose root run submitted an answer. */
  onlyAnswered: boolean;
  /** Correctness of each log by file name (from an evaluation's results); with it, only correct logs are kept. */
  /** Verdicts by log path (results found beside the logs) or by log file name (`--results`). */
  correctLogs: Map<string, boolean> | null;
  /** Where the verdicts came from, in the report's words (null: `--results`). */
  resultsFrom?: string | null;
  /** Keep only calls answered at this depth (0: the root model; plain sub-calls count one deeper than their run). */
  depth: number | null;
  /** Keep only trajectories whose root run took at most this many iterations. */
  maxIterations: number | null;
  /**
   * Keep only calls under this label (from the log's LOG.labels.jsonl): on the session, on the
   * call's run (its own turns and the plain sub-calls it made; not its child runs), on the
   * iteration the call belongs to, or on the plain sub-call itself.
   */
  label?: string | null;
}

export interface SftSource {
  file: string;
  sessionId: string | null;
  /** The log's labels (needed with `selection.label`). */
  labels?: LabelsState;
}

export interface SftReport {
  logs: number;
  trajectories: { seen: number; kept: number };
  examples: { kept: number; dropped: Record<string, number> };
  keptByPurpose: Record<string, number>;
  /** Estimated tokens per kept example (prompt and reply), in buckets `upTo` (null: beyond the last). */
  tokenHistogram: { upTo: number | null; count: number }[];
  tokens: { total: number; max: number };
}

const BUCKETS = [512, 1024, 2048, 4096, 8192, 16_384, 32_768, 65_536, 131_072];

type Line = Record<string, unknown>;

function mergeRuns(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content = `${last.content}\n\n${m.content}`;
    else out.push({ ...m });
  }
  return out;
}

/** The reply an example ends with: its text, and its thinking as `keep` says. */
function replyMessage(call: Pick<ModelCall, 'reply' | 'reasoning'>, keep: SftReasoning): ChatMessage & { reasoning_content?: string } {
  const r = call.reasoning;
  // A <think> section read as reply (a reference-pack run) is thinking, not reply, here.
  const text = r?.inText ? (splitThink(call.reply)?.text ?? call.reply) : call.reply;
  if (r === null || keep === 'drop') return { role: 'assistant', content: text };
  if (keep === 'field') return { role: 'assistant', content: text, reasoning_content: r.text };
  return { role: 'assistant', content: contentAsSent(text, { text: r.text, source: 'think' }) };
}

/** One example in a trainer's format. */
function formatExample(call: Pick<ModelCall, 'messages' | 'reply' | 'reasoning'>, format: SftFormat, keep: SftReasoning = 'drop'): Line {
  const reply = replyMessage(call, keep);
  switch (format) {
    case 'openai':
      return { messages: [...call.messages, reply] };
    case 'prompt-completion':
      return { prompt: call.messages, completion: [reply] };
    case 'sharegpt': {
      const system = call.messages
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n\n');
      const turns = mergeRuns([...call.messages.filter((m) => m.role !== 'system'), reply]);
      const conversations = turns.map((m) => ({ from: m.role === 'user' ? 'human' : 'gpt', value: m.content }));
      return system === '' ? { conversations } : { system, conversations };
    }
  }
}

interface Pending {
  calls: ModelCall[];
}

/** Reads the events of one log after another and writes the selected examples. */
export class SftExporter {
  private readonly selection: SftSelection;
  private readonly format: SftFormat;
  private readonly withSource: boolean;
  private readonly reasoning: SftReasoning;
  private readonly write: (line: string) => void;
  private readonly report: SftReport = {
    logs: 0,
    trajectories: { seen: 0, kept: 0 },
    examples: { kept: 0, dropped: {} },
    keptByPurpose: {},
    tokenHistogram: [...BUCKETS.map((upTo) => ({ upTo, count: 0 })), { upTo: null, count: 0 }],
    tokens: { total: 0, max: 0 },
  };

  constructor(opts: {
    selection: SftSelection;
    format: SftFormat;
    withSource: boolean;
    reasoning?: SftReasoning;
    write: (line: string) => void;
  }) {
    this.selection = opts.selection;
    this.format = opts.format;
    this.withSource = opts.withSource;
    this.reasoning = opts.reasoning ?? 'drop';
    this.write = opts.write;
  }

  /** A folder that takes one log's events; call `end()` on it after the last. */
  beginLog(source: SftSource): { push: ModelCallFolder['push']; end: () => void } {
    this.report.logs++;
    const pending = new Map<string, Pending>();
    const logVerdict = this.logVerdict(source.file);
    const folder = new ModelCallFolder({
      call: (c) => {
        let p = pending.get(c.rootRunId);
        if (!p) pending.set(c.rootRunId, (p = { calls: [] }));
        p.calls.push(c);
      },
      rootEnd: (e) => {
        const p = pending.get(e.rootRunId);
        pending.delete(e.rootRunId);
        this.settle(p?.calls ?? [], logVerdict ?? this.trajectoryVerdict(e), source);
      },
    });
    return {
      push: (e) => folder.push(e),
      end: () => {
        for (const p of pending.values()) this.settle(p.calls, 'the trajectory did not end (log cut short)', source);
        pending.clear();
      },
    };
  }

  result(): SftReport {
    return structuredClone(this.report);
  }

  /** Why a whole log is dropped, or null. */
  private logVerdict(file: string): string | null {
    const correct = this.selection.correctLogs;
    if (correct === null) return null;
    // By path when the results were found beside the logs (two evaluations name their logs alike), else by name.
    const verdict = correct.get(resolve(file)) ?? correct.get(baseName(file));
    if (verdict === undefined) return `no result for this log in ${this.selection.resultsFrom ?? '--results'}`;
    return verdict ? null : `incorrect in ${this.selection.resultsFrom ?? '--results'}`;
  }

  private trajectoryVerdict(e: TrajectoryEnd): string | null {
    if (this.selection.onlyAnswered && e.stopReason !== 'answered') return `not answered (${e.stopReason})`;
    const max = this.selection.maxIterations;
    if (max !== null && e.iterations > max) return `more than ${max} iterations`;
    return null;
  }

  private settle(calls: ModelCall[], verdict: string | null, source: SftSource): void {
    this.report.trajectories.seen++;
    if (verdict !== null) {
      this.drop(verdict, calls.length);
      return;
    }
    this.report.trajectories.kept++;
    for (const c of calls) {
      if (this.selection.depth !== null && c.depth !== this.selection.depth) {
        this.drop(`depth ${c.depth}, not ${this.selection.depth}`, 1);
        continue;
      }
      const label = this.selection.label ?? null;
      if (label !== null && !hasLabel(source.labels, c, label)) {
        this.drop(`not labelled ${label}`, 1);
        continue;
      }
      if (c.reply.trim() === '') {
        this.drop('empty reply', 1);
        continue;
      }
      this.keep(c, source);
    }
  }

  private drop(reason: string, n: number): void {
    if (n === 0) return;
    const d = this.report.examples.dropped;
    d[reason] = (d[reason] ?? 0) + n;
  }

  private keep(c: ModelCall, source: SftSource): void {
    const line = formatExample(c, this.format, this.reasoning);
    if (this.withSource) {
      line['source'] = {
        file: source.file,
        sessionId: source.sessionId,
        runId: c.runId,
        rootRunId: c.rootRunId,
        depth: c.depth,
        turn: c.turn,
        iteration: c.iteration,
        purpose: c.purpose,
        callId: c.callId,
        model: c.model,
        usage: c.usage,
      };
    }
    this.write(`${JSON.stringify(line)}\n`);
    const r = this.report;
    r.examples.kept++;
    r.keptByPurpose[c.purpose] = (r.keptByPurpose[c.purpose] ?? 0) + 1;
    const tokens = estimateTokens([...c.messages, { content: c.reply }]);
    r.tokens.total += tokens;
    r.tokens.max = Math.max(r.tokens.max, tokens);
    const bucket = r.tokenHistogram.find((b) => b.upTo === null || tokens <= b.upTo)!;
    bucket.count++;
  }
}

function hasLabel(labels: LabelsState | undefined, c: ModelCall, label: string): boolean {
  if (!labels) return false;
  const targets = [
    SESSION_TARGET,
    targetId({ kind: 'run', runId: c.runId }),
    targetId({ kind: 'iteration', runId: c.runId, iteration: c.iteration }),
    ...(c.callId !== null ? [targetId({ kind: 'call', callId: c.callId })] : []),
  ];
  return targets.some((t) => labelsOf(labels, t).includes(label));
}

export function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i < 0 ? path : path.slice(i + 1);
}

/** The report as a person reads it: kept, dropped by reason, and the token histogram. */
export function formatSftReport(r: SftReport, output: string): string {
  const lines = [
    `wrote ${r.examples.kept.toLocaleString('en-US')} example(s) to ${output} from ${r.trajectories.kept} of ${r.trajectories.seen} trajectories in ${r.logs} log(s)`,
  ];
  const purposes = Object.entries(r.keptByPurpose).map(([p, n]) => `${p} ${n}`);
  if (purposes.length > 0) lines.push(`kept by call: ${purposes.join(', ')}`);
  const dropped = Object.entries(r.examples.dropped).sort((a, b) => b[1] - a[1]);
  if (dropped.length > 0) {
    lines.push('dropped:');
    for (const [reason, n] of dropped) lines.push(`  ${String(n).padStart(7)}  ${reason}`);
  }
  if (r.examples.kept > 0) {
    lines.push(
      `estimated tokens per example (mean ${Math.round(r.tokens.total / r.examples.kept).toLocaleString('en-US')}, max ${r.tokens.max.toLocaleString('en-US')}):`,
    );
    const peak = Math.max(...r.tokenHistogram.map((b) => b.count));
    let prev = 0;
    for (const b of r.tokenHistogram) {
      const label = b.upTo === null ? `> ${prev.toLocaleString('en-US')}` : `≤ ${b.upTo.toLocaleString('en-US')}`;
      if (b.upTo !== null) prev = b.upTo;
      if (b.count === 0) continue;
      const bar = '█'.repeat(Math.max(1, Math.round((b.count / peak) * 40)));
      lines.push(`  ${label.padStart(11)}  ${bar} ${b.count}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
