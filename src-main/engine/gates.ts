// Points where a debugger can hold a run. The engine awaits each hook that is present;
// while a hook's promise is pending the run is paused. The host implements breakpoints,
// step and continue on top of these.
import type { ChatMessage, RunId } from '../../src-shared/events.ts';
import type { Repl } from '../sandbox/types.ts';

export interface GateRun {
  runId: RunId;
  depth: number;
  /** Read-only access to the run's REPL (e.g. to list variables while paused). */
  repl: Repl;
}

/** What a person may change after the reply arrives and before its code runs. */
export interface ReplyEdit {
  /** Replaces the whole reply (its blocks are found again). */
  text?: string;
  /** Replaces the code of individual blocks, by 0-based index. */
  blocks?: Record<number, string>;
}

export interface EngineGates {
  beforeModelCall?(run: GateRun, iteration: number, messages: readonly ChatMessage[]): Promise<void>;
  afterReply?(run: GateRun, iteration: number, reply: string, blocks: readonly string[]): Promise<ReplyEdit | void>;
  afterBlock?(run: GateRun, iteration: number, block: number, failed: boolean): Promise<void>;
  onSubcallStart?(run: GateRun, iteration: number, block: number, kind: 'llm' | 'rlm', prompt: string): Promise<void>;
}
