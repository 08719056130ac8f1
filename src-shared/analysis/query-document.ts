// The document a tree query reads: one per session (log), built from the run tree and the
// log's labels. Runs, iterations and sub-calls each carry their target id (the same ids the
// labels use), so a query that returns them says exactly what matched. Strings are the
// events' own (no copies). The schema is documented in docs/queries.md.
import type { RunNode, TrajectoryState } from '../trajectory/types.ts';
import { iterationCount, runOwnTotals } from '../trajectory/totals.ts';
import { walkRuns } from '../trajectory/reducer.ts';
import { ContextPrints } from './context-printed.ts';
import { labelsOf, SESSION_TARGET, targetId, type LabelsState } from './labels.ts';

interface BlockDoc {
  block: number;
  code: string;
  stdout: string;
  stderr: string;
  /** `Name: message` when the block raised, else null. */
  error: string | null;
}

export interface IterationDoc {
  target: string;
  run: string;
  iteration: number;
  reply: string;
  replyChars: number;
  blocks: BlockDoc[];
  errors: number;
  subcalls: number;
  labels: string[];
  note: string | null;
}

export interface CallDoc {
  target: string;
  id: string;
  run: string;
  depth: number;
  iteration: number;
  block: number;
  kind: 'llm' | 'rlm';
  leaf: boolean;
  /** The child run's id for an `rlm_query` that spawned one, else null. */
  child: string | null;
  model: string;
  prompt: string;
  promptChars: number;
  response: string | null;
  responseChars: number;
  error: string | null;
  latencyMs: number | null;
  batchSize: number;
  labels: string[];
  note: string | null;
}

export interface RunDoc {
  target: string;
  id: string;
  parent: string | null;
  children: string[];
  root: string;
  depth: number;
  turn: number;
  model: string | null;
  query: string | null;
  /** Null while the run has no `run.end`. */
  stopReason: string | null;
  answered: boolean;
  answer: string | null;
  iterationCount: number;
  maxIterations: number | null;
  /** Limits that fired in this run (`limit` events), e.g. `max_iterations`. */
  limits: string[];
  contextChars: number | null;
  /** See context-printed.ts; null when the run's context text is unknown (a root run without --context). */
  printedContext: boolean | null;
  codeBlocks: number;
  errors: number;
  llmCalls: number;
  rlmCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  durationMs: number | null;
  labels: string[];
  note: string | null;
  iterations: IterationDoc[];
  subcalls: CallDoc[];
}

export interface SessionDoc {
  target: typeof SESSION_TARGET;
  file: string;
  format: string | null;
  sessionId: string | null;
  labels: string[];
  note: string | null;
  /** Every run, each root followed by its descendants depth first. */
  runs: RunDoc[];
  /** Every sub-call of every run. */
  calls: CallDoc[];
}

export interface DocumentInput {
  file: string;
  format: string | null;
  traj: TrajectoryState;
  labels: LabelsState;
  /** The root runs' context text, when known (e.g. `query --context FILE`). */
  rootContext?: string | null;
}

function noteOf(labels: LabelsState, target: string): string | null {
  return labels.targets.get(target)?.note ?? null;
}

function blockDocs(it: RunNode['iterations'][number]): BlockDoc[] {
  const out: BlockDoc[] = [];
  for (const b of it.blocks) {
    if (!b) continue;
    const err = b.end?.error ?? null;
    out.push({
      block: b.block,
      code: b.start?.code ?? '',
      stdout: b.end?.stdout ?? '',
      stderr: b.end?.stderr ?? '',
      error: err ? `${err.name}: ${err.message}` : null,
    });
  }
  return out;
}

export function buildSessionDoc(input: DocumentInput): SessionDoc {
  const { traj, labels } = input;
  const runs: RunDoc[] = [];
  const calls: CallDoc[] = [];
  const rootPrints = input.rootContext ? new ContextPrints(input.rootContext) : null;
  for (const run of walkRuns(traj)) {
    const runTarget = targetId({ kind: 'run', runId: run.id });
    const own = runOwnTotals(traj, run);
    const iterations: IterationDoc[] = [];
    const subcalls: CallDoc[] = [];
    const outputs: string[] = [];
    for (const it of run.iterations) {
      const blocks = blockDocs(it);
      let n = 0;
      for (const b of it.blocks) {
        if (!b) continue;
        n += b.calls.length;
        for (const id of b.calls) {
          const c = traj.calls.get(id);
          if (!c) continue;
          const t = targetId({ kind: 'call', callId: c.id });
          const response = c.end?.response ?? null;
          subcalls.push({
            target: t,
            id: c.id,
            run: run.id,
            depth: run.depth,
            iteration: c.iteration,
            block: c.block,
            kind: c.start.kind,
            leaf: c.start.leaf,
            child: c.start.childRunId,
            model: c.start.model,
            prompt: c.start.prompt,
            promptChars: c.start.prompt.length,
            response,
            responseChars: response?.length ?? 0,
            error: c.end?.error ?? null,
            latencyMs: c.end?.latencyMs ?? null,
            batchSize: c.start.batch?.size ?? 0,
            labels: labelsOf(labels, t),
            note: noteOf(labels, t),
          });
        }
      }
      for (const b of blocks) outputs.push(b.stdout);
      const t = targetId({ kind: 'iteration', runId: run.id, iteration: it.iteration });
      iterations.push({
        target: t,
        run: run.id,
        iteration: it.iteration,
        reply: it.reply?.text ?? '',
        replyChars: it.reply?.text.length ?? 0,
        blocks,
        errors: blocks.filter((b) => b.error !== null).length,
        subcalls: n,
        labels: labelsOf(labels, t),
        note: noteOf(labels, t),
      });
    }
    const spawnedBy = run.spawnedBy ? traj.calls.get(run.spawnedBy.callId) : undefined;
    const prints = run.parentRunId === null ? rootPrints : spawnedBy ? new ContextPrints(spawnedBy.start.prompt) : null;
    const end = run.end;
    runs.push({
      target: runTarget,
      id: run.id,
      parent: run.parentRunId,
      children: [...run.children],
      root: run.rootRunId,
      depth: run.depth,
      turn: run.turn,
      model: run.start?.model ?? null,
      query: run.start?.query ?? null,
      stopReason: end?.stopReason ?? null,
      answered: end?.stopReason === 'answered',
      answer: end?.answer ?? null,
      iterationCount: iterationCount(run),
      maxIterations: run.start?.limits.maxIterations ?? null,
      limits: run.limits.map((l) => l.limit),
      contextChars: run.start?.context.totalChars ?? null,
      printedContext: prints ? outputs.some((o) => prints.seenIn(o)) : null,
      codeBlocks: own.codeBlocks,
      errors: own.errors,
      llmCalls: own.llmCalls,
      rlmCalls: own.rlmCalls,
      inputTokens: own.inputTokens,
      outputTokens: own.outputTokens,
      costUsd: own.costUsd,
      durationMs: end?.durationMs ?? null,
      labels: labelsOf(labels, runTarget),
      note: noteOf(labels, runTarget),
      iterations,
      subcalls,
    });
    calls.push(...subcalls);
  }
  return {
    target: SESSION_TARGET,
    file: input.file,
    format: input.format,
    sessionId: traj.header?.sessionId ?? null,
    labels: labelsOf(labels, SESSION_TARGET),
    note: noteOf(labels, SESSION_TARGET),
    runs,
    calls,
  };
}
