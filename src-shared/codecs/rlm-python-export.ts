// Export of our events as the reference library's log (see rlm-python-format.ts), so the
// reference web visualizer opens our runs. An `rlm_studio` key carries what that format
// lacks (exact reply usage and latency, batch/leaf flags); the visualizer ignores it and
// rlm-python-import.ts reads it back.
import { contentAsSent } from '../think.ts';
import type { ChatMessage, ReplLanguage, RunId, TrajectoryEvent } from '../events.ts';
import { applyEvent, blocksOf, createTrajectoryState } from '../trajectory/reducer.ts';
import { addModelUsage, type UsageByModel } from '../trajectory/by-model.ts';
import type { RunNode, TrajectoryState } from '../trajectory/types.ts';
import { ENVIRONMENT_TYPES, formatPyTimestamp, type Obj } from './rlm-python-format.ts';

/** The reference library's default-answer request (RLM-SPEC §3.6), for rebuilt prompts. */
const DEFAULT_ANSWER_REQUEST = "Please provide a final answer to the user's question based on the information provided.";

function usageSummary(model: string, u: { inputTokens: number; outputTokens: number; costUsd: number | null }, calls: number): Obj {
  return usageSummaryByModel({ [model]: { ...u, calls } });
}

/** The reference's UsageSummary: one `model_usage_summaries` entry per model; `total_cost` only where some cost is known. */
function usageSummaryByModel(byModel: UsageByModel): Obj {
  const models: Obj = {};
  let total: number | null = null;
  for (const [model, u] of Object.entries(byModel)) {
    const m: Obj = { total_calls: u.calls, total_input_tokens: u.inputTokens, total_output_tokens: u.outputTokens };
    if (u.costUsd !== null) {
      m['total_cost'] = u.costUsd;
      total = (total ?? 0) + u.costUsd;
    }
    Object.defineProperty(models, model, { value: m, enumerable: true, writable: true, configurable: true });
  }
  const s: Obj = { model_usage_summaries: models };
  if (total !== null) s['total_cost'] = total;
  return s;
}

/**
 * What a child RLM's entry reports, as the reference's child LM handler counts it: the
 * child's own replies (under its model) and its own plain sub-calls (under theirs), not its
 * children's.
 */
function childUsage(state: TrajectoryState, child: RunNode): UsageByModel {
  const out: UsageByModel = {};
  const model = child.start?.model ?? 'unknown';
  for (const it of child.iterations) {
    for (const r of [it.reply, ...it.compactionReplies]) if (r) addModelUsage(out, model, r.usage);
    for (const b of blocksOf(it)) {
      for (const id of b.calls) {
        const call = state.calls.get(id);
        if (!call?.end || (call.start.childRunId !== null && !call.start.leaf)) continue;
        addModelUsage(out, call.start.model, call.end.usage);
      }
    }
  }
  return out;
}

function runMetadata(state: TrajectoryState, run: RunNode): Obj {
  const model = run.start?.model ?? 'unknown';
  // The REPL's language: the reference's name for its in-process Python REPL, or ours for JavaScript.
  const repl: ReplLanguage = run.start?.repl ?? state.header?.repl ?? 'javascript';
  return {
    root_model: model,
    max_depth: run.start?.limits.maxDepth ?? 1,
    max_iterations: run.start?.limits.maxIterations ?? 30,
    backend: 'openai',
    backend_kwargs: { model_name: model },
    environment_type: ENVIRONMENT_TYPES[repl],
    environment_kwargs: {},
    other_backends: run.start?.subModel ? ['openai'] : null,
    // Which prompt pack the run read (their viewer ignores the key).
    ...(run.start?.prompts ? { rlm_studio: { prompts: run.start.prompts } } : {}),
  };
}

function pyTime(state: TrajectoryState, t: number): string {
  const epoch = state.header ? Date.parse(state.header.createdAt) : NaN;
  return formatPyTimestamp((Number.isNaN(epoch) ? 0 : epoch) + t);
}

/** A run's iteration entries in the reference shape (children nested in rlm_calls). */
function runEntries(state: TrajectoryState, run: RunNode, epochOf: (t: number) => string): Obj[] {
  const entries: Obj[] = [];
  let history: ChatMessage[] = run.start ? [...run.start.messages] : [];
  for (const it of run.iterations) {
    if (it.compaction) history = [...it.compaction.messages];
    if (it.start) history.push(...it.start.appended);
    const reply = it.reply;
    const isDefault = reply?.purpose === 'final_answer';
    const prompt = isDefault
      ? [...history, ...(reply.transient ?? [{ role: 'assistant', content: DEFAULT_ANSWER_REQUEST }])]
      : [...history, ...(reply?.transient ?? [])];
    const codeBlocks = blocksOf(it).map((b) => {
      const calls = b.calls.map((id) => {
        const call = state.calls.get(id);
        if (!call) return {};
        const end = call.end;
        const o: Obj = {
          root_model: call.start.model,
          prompt: call.start.prompt,
          // What the endpoint sent, as the reference records it: a <think> section we split off goes back in.
          response: end ? contentAsSent(end.response, end.reasoning) : '',
          usage_summary: usageSummary(call.start.model, end?.usage ?? { inputTokens: 0, outputTokens: 0, costUsd: null }, 1),
          execution_time: (end?.latencyMs ?? 0) / 1000,
        };
        const ext: Obj = {};
        if (call.start.batch) ext['batch'] = call.start.batch;
        if (call.start.leaf) ext['leaf'] = true;
        if (Object.keys(ext).length > 0) o['rlm_studio'] = ext;
        const child = call.start.childRunId ? state.runs.get(call.start.childRunId) : undefined;
        if (child && !call.start.leaf) {
          // The reference reports a child's own LM usage in its rlm_calls entry, per model.
          o['usage_summary'] = usageSummaryByModel(childUsage(state, child));
          o['metadata'] = { run_metadata: runMetadata(state, child), iterations: runEntries(state, child, epochOf) };
        }
        return o;
      });
      let stderr = b.end?.stderr ?? '';
      // The reference marks failures only through stderr; keep our error visible there.
      if (b.end?.error && stderr.trim() === '') stderr = `\n${b.end.error.name}: ${b.end.error.message}`;
      return {
        code: b.start?.code ?? '',
        result: {
          stdout: b.end?.stdout ?? '',
          stderr,
          // What the run recorded (short values; see BlockEndEvent.locals); nothing for logs that predate it.
          locals: b.end?.locals ?? {},
          execution_time: (b.end?.durationMs ?? 0) / 1000,
          rlm_calls: calls,
          final_answer: b.end?.submitted ?? null,
        },
      };
    });
    const lastT = it.end?.t ?? it.lastT;
    entries.push({
      type: 'iteration',
      iteration: it.iteration,
      timestamp: epochOf(lastT),
      prompt,
      response: reply ? contentAsSent(reply.text, reply.reasoning) : '',
      code_blocks: codeBlocks,
      final_answer: isDefault ? (run.end?.answer ?? reply?.text ?? null) : (it.end?.finalAnswer ?? null),
      iteration_time: isDefault ? null : (it.end?.durationMs ?? Math.max(0, it.lastT - it.firstT)) / 1000,
      // Our extension (ignored by the reference visualizer): exact usage and latency.
      rlm_studio: reply ? { usage: reply.usage, latencyMs: reply.latencyMs } : {},
    });
    if (it.end) history.push(...it.end.appended);
  }
  return entries;
}

/**
 * Incremental export: feed events; each root run's lines come out when it ends (the
 * reference nests children in their parent's lines, so a completion is written whole).
 */
export class RlmPythonExporter {
  private state: TrajectoryState;
  private wroteMeta = false;
  private done = new Set<RunId>();

  constructor(state: TrajectoryState = createTrajectoryState()) {
    this.state = state;
  }

  push(e: TrajectoryEvent): string[] {
    applyEvent(this.state, e);
    if (e.type === 'run.end' && e.parentRunId === null) return this.flush(e.runId);
    return [];
  }

  end(): string[] {
    const out: string[] = [];
    for (const id of this.state.roots) if (!this.done.has(id)) out.push(...this.flush(id));
    return out;
  }

  private flush(rootId: RunId): string[] {
    const root = this.state.runs.get(rootId);
    if (!root || this.done.has(rootId)) return [];
    this.done.add(rootId);
    const out: string[] = [];
    const epochOf = (t: number): string => pyTime(this.state, t);
    if (!this.wroteMeta) {
      this.wroteMeta = true;
      out.push(`${JSON.stringify({ type: 'metadata', timestamp: epochOf(root.start?.t ?? 0), ...runMetadata(this.state, root) })}\n`);
    }
    for (const entry of runEntries(this.state, root, epochOf)) out.push(`${JSON.stringify(entry)}\n`);
    // Drop the finished completion's nodes so a long multi-turn file stays bounded.
    for (const id of [...this.state.runs.keys()]) {
      const r = this.state.runs.get(id);
      if (r && r.rootRunId === rootId) {
        for (const it of r.iterations) for (const b of blocksOf(it)) for (const c of b.calls) this.state.calls.delete(c);
        this.state.runs.delete(id);
      }
    }
    return out;
  }
}

/** The reference library's JSONL lines for these events (each ending in a newline). */
export function exportRlmPython(events: Iterable<TrajectoryEvent>, header: TrajectoryState['header'] = null): string[] {
  const exporter = new RlmPythonExporter(createTrajectoryState(header));
  const out: string[] = [];
  for (const e of events) out.push(...exporter.push(e));
  out.push(...exporter.end());
  return out;
}
