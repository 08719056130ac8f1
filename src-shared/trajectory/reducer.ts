// Folds trajectory events into the run tree, one event at a time, for live runs and whole
// files alike. Deterministic and free of I/O; it updates `state` in place and returns it
// (copying Maps per event would make a million-event file quadratic) and bumps `revision`
// so views can tell that something changed.
import { asCallId, assertNever, type LogHeader, type RunId, type TrajectoryEvent } from '../events.ts';
import type { BlockNode, CallNode, IterationNode, RunNode, TrajectoryState } from './types.ts';

export function createTrajectoryState(header: LogHeader | null = null): TrajectoryState {
  return {
    header,
    runs: new Map(),
    calls: new Map(),
    roots: [],
    problems: [],
    eventCount: 0,
    lastSeq: -1,
    maxT: 0,
    revision: 0,
  };
}

/** Folds every event of a whole file (or any list) into a fresh state. */
export function reduceEvents(events: Iterable<TrajectoryEvent>, header: LogHeader | null = null): TrajectoryState {
  const state = createTrajectoryState(header);
  for (const e of events) applyEvent(state, e);
  return state;
}

function problem(state: TrajectoryState, e: TrajectoryEvent, message: string): void {
  state.problems.push({ seq: e.seq, runId: e.runId, message: `event ${e.seq} (${e.type}): ${message}` });
}

function newRun(e: TrajectoryEvent): RunNode {
  return {
    id: e.runId,
    parentRunId: e.parentRunId,
    rootRunId: e.runId,
    depth: e.depth,
    spawnedBy: null,
    turn: 0,
    start: null,
    end: null,
    iterations: [],
    children: [],
    limits: [],
    firstT: e.t,
    lastT: e.t,
  };
}

/** Links a run under its parent (or as a root) and inherits the root from the parent. */
function attach(state: TrajectoryState, run: RunNode): void {
  if (run.parentRunId === null) {
    state.roots.push(run.id);
    run.rootRunId = run.id;
    return;
  }
  const parent = state.runs.get(run.parentRunId);
  if (parent) {
    parent.children.push(run.id);
    run.rootRunId = parent.rootRunId;
  } else {
    run.rootRunId = run.parentRunId;
  }
}

/** The run an event belongs to; an unknown run gets a placeholder so nothing read is lost. */
function runFor(state: TrajectoryState, e: TrajectoryEvent): RunNode {
  let run = state.runs.get(e.runId);
  if (!run) {
    problem(state, e, `run ${e.runId} has no run.start before this event`);
    run = newRun(e);
    state.runs.set(run.id, run);
    attach(state, run);
  }
  if (e.t < run.firstT) run.firstT = e.t;
  if (e.t > run.lastT) run.lastT = e.t;
  return run;
}

function iterationFor(run: RunNode, iteration: number, t: number): IterationNode {
  // Events almost always concern the latest iteration: search from the end.
  for (let i = run.iterations.length - 1; i >= 0; i--) {
    const it = run.iterations[i];
    if (it && it.iteration === iteration) {
      if (t > it.lastT) it.lastT = t;
      return it;
    }
  }
  const node: IterationNode = {
    runId: run.id,
    iteration,
    start: null,
    reply: null,
    compactionReplies: [],
    compaction: null,
    modelErrors: [],
    blocks: [],
    end: null,
    firstT: t,
    lastT: t,
  };
  run.iterations.push(node);
  return node;
}

function blockFor(it: IterationNode, block: number): BlockNode {
  let node = it.blocks[block];
  if (!node) {
    node = { runId: it.runId, iteration: it.iteration, block, start: null, end: null, calls: [], replReset: null };
    it.blocks[block] = node;
  }
  return node;
}

export function applyEvent(state: TrajectoryState, e: TrajectoryEvent): TrajectoryState {
  state.eventCount++;
  state.revision++;
  if (e.seq <= state.lastSeq) problem(state, e, `sequence number ${e.seq} is not after ${state.lastSeq}`);
  else state.lastSeq = e.seq;
  if (e.t > state.maxT) state.maxT = e.t;

  switch (e.type) {
    case 'run.start': {
      let run = state.runs.get(e.runId);
      if (run && run.start) {
        problem(state, e, `run ${e.runId} started twice`);
        return state;
      }
      if (!run) {
        run = newRun(e);
        state.runs.set(run.id, run);
        attach(state, run);
      } else if (e.t < run.firstT) {
        run.firstT = e.t;
      }
      run.start = e;
      run.spawnedBy = e.spawnedBy;
      run.turn = e.turn;
      if (e.parentRunId === null && e.depth !== 0) problem(state, e, `root run ${e.runId} has depth ${e.depth}`);
      return state;
    }
    case 'run.end': {
      const run = runFor(state, e);
      if (run.end) problem(state, e, `run ${e.runId} ended twice`);
      run.end = e;
      return state;
    }
    case 'iteration.start': {
      const it = iterationFor(runFor(state, e), e.iteration, e.t);
      it.start = e;
      it.firstT = Math.min(it.firstT, e.t);
      return state;
    }
    case 'iteration.end': {
      iterationFor(runFor(state, e), e.iteration, e.t).end = e;
      return state;
    }
    case 'model.reply': {
      const it = iterationFor(runFor(state, e), e.iteration, e.t);
      if (e.purpose === 'compaction') it.compactionReplies.push(e);
      else {
        if (it.reply) problem(state, e, `iteration ${e.iteration} of run ${e.runId} has a second reply`);
        it.reply = e;
      }
      return state;
    }
    case 'model.error': {
      iterationFor(runFor(state, e), e.iteration, e.t).modelErrors.push(e);
      return state;
    }
    case 'compaction': {
      iterationFor(runFor(state, e), e.iteration, e.t).compaction = e;
      return state;
    }
    case 'block.start': {
      blockFor(iterationFor(runFor(state, e), e.iteration, e.t), e.block).start = e;
      return state;
    }
    case 'block.end': {
      blockFor(iterationFor(runFor(state, e), e.iteration, e.t), e.block).end = e;
      return state;
    }
    case 'repl.reset': {
      blockFor(iterationFor(runFor(state, e), e.iteration, e.t), e.block).replReset = e;
      return state;
    }
    case 'subcall.start': {
      const run = runFor(state, e);
      if (state.calls.has(e.callId)) {
        problem(state, e, `call ${e.callId} started twice`);
        return state;
      }
      const node: CallNode = { id: e.callId, runId: run.id, iteration: e.iteration, block: e.block, start: e, end: null };
      state.calls.set(e.callId, node);
      blockFor(iterationFor(run, e.iteration, e.t), e.block).calls.push(e.callId);
      return state;
    }
    case 'subcall.end': {
      runFor(state, e);
      const node = state.calls.get(asCallId(e.callId));
      if (!node) {
        problem(state, e, `call ${e.callId} ended without a subcall.start`);
        return state;
      }
      node.end = e;
      return state;
    }
    case 'limit': {
      runFor(state, e).limits.push(e);
      return state;
    }
    default:
      return assertNever(e, 'event');
  }
}

/** Runs in depth-first order (each parent before its children), starting at `from` or all roots. */
export function* walkRuns(state: TrajectoryState, from?: RunId): Generator<RunNode> {
  const stack: RunId[] = from ? [from] : [...state.roots].reverse();
  const seen = new Set<RunId>();
  while (stack.length > 0) {
    const id = stack.pop() as RunId;
    if (seen.has(id)) continue;
    seen.add(id);
    const run = state.runs.get(id);
    if (!run) continue;
    yield run;
    for (let i = run.children.length - 1; i >= 0; i--) stack.push(run.children[i] as RunId);
  }
  if (!from) {
    // Runs whose parent never appeared (damaged files) still count.
    for (const run of state.runs.values()) if (!seen.has(run.id)) yield run;
  }
}

/** Blocks in order (holes left by missing events skipped). */
export function blocksOf(it: IterationNode): BlockNode[] {
  return it.blocks.filter((b): b is BlockNode => b !== undefined);
}
