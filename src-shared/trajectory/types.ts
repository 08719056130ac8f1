// The run tree that the reducer builds from events. Nodes keep the events themselves (no
// copies of texts), so a 1 GB log costs little more than its parsed events.
import type {
  BlockEndEvent,
  BlockStartEvent,
  CallId,
  CompactionEvent,
  IterationEndEvent,
  IterationStartEvent,
  LimitEvent,
  LogHeader,
  ModelErrorEvent,
  ModelReplyEvent,
  ReplResetEvent,
  RunEndEvent,
  RunId,
  RunStartEvent,
  SpawnPlace,
  SubcallEndEvent,
  SubcallStartEvent,
} from '../events.ts';

/** Something the reducer could not place; the event is kept where possible. */
interface TrajectoryProblem {
  seq: number;
  runId: RunId;
  message: string;
}

export interface BlockNode {
  runId: RunId;
  iteration: number;
  block: number;
  start: BlockStartEvent | null;
  end: BlockEndEvent | null;
  /** Sub-calls made by this block, in the order they started. */
  calls: CallId[];
  replReset: ReplResetEvent | null;
}

export interface IterationNode {
  runId: RunId;
  iteration: number;
  start: IterationStartEvent | null;
  /** The reply of this iteration (purpose 'turn', or 'final_answer' for the default answer). */
  reply: ModelReplyEvent | null;
  /** Compaction calls made before this iteration's turn (their usage counts too). */
  compactionReplies: ModelReplyEvent[];
  compaction: CompactionEvent | null;
  modelErrors: ModelErrorEvent[];
  /** Indexed by block number. */
  blocks: BlockNode[];
  end: IterationEndEvent | null;
  /** `t` of the first and last event seen for this iteration. */
  firstT: number;
  lastT: number;
}

export interface CallNode {
  id: CallId;
  runId: RunId;
  iteration: number;
  block: number;
  start: SubcallStartEvent;
  end: SubcallEndEvent | null;
}

export interface RunNode {
  id: RunId;
  parentRunId: RunId | null;
  /** The root run of this run's session (itself for a root). */
  rootRunId: RunId;
  depth: number;
  spawnedBy: SpawnPlace | null;
  turn: number;
  /** Null when events arrived for a run whose `run.start` was never seen. */
  start: RunStartEvent | null;
  end: RunEndEvent | null;
  /** Iterations in the order first seen (normally 1, 2, 3…; a default answer is maxIterations+1). */
  iterations: IterationNode[];
  /** Child runs in the order they started. */
  children: RunId[];
  limits: LimitEvent[];
  firstT: number;
  lastT: number;
}

export interface TrajectoryState {
  header: LogHeader | null;
  runs: Map<RunId, RunNode>;
  calls: Map<CallId, CallNode>;
  /** Root runs (one per completion / session turn) in the order they started. */
  roots: RunId[];
  problems: TrajectoryProblem[];
  eventCount: number;
  lastSeq: number;
  /** Largest `t` seen. */
  maxT: number;
  /** Bumped on every applied event: cheap change detection for views. */
  revision: number;
}
