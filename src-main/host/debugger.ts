// Step-through on top of the engine's gates. Lives in the worker, next to the engine.
// A gate that decides to stop returns a promise that stays pending until the person
// continues, steps or cancels; while it is pending that run is paused. Several runs of a
// session can reach gates at once (batched child runs): each waits in a queue and the
// front one is "the" pause shown to the person. `step` releases only the front one and
// stops at the next gate reached; `continue` releases only the front one too (the others
// were breakpoint hits the person asked to see, so each shows in turn), and stops nowhere
// but at breakpoints after it; `continue(true)` releases every held stop; cancel releases all.
import type { ChatMessage } from '../../src-shared/events.ts';
import { findReplBlocks as findBlocks } from '../engine/code-blocks.ts';
import type { Breakpoint, BreakpointKind, PauseInfo, ReplyEditInput } from '../../src-shared/protocol.ts';
import type { EngineGates, GateRun, ReplyEdit } from '../engine/gates.ts';
import type { Repl } from '../sandbox/types.ts';

interface Waiter {
  info: PauseInfo;
  edit: ReplyEdit | null;
  release: () => void;
}

export interface DebuggerEvents {
  /** The front pause changed: null when nothing is held. */
  onPause(info: PauseInfo | null): void;
}

export class Debugger {
  private breakpoints: Breakpoint[];
  private pauseRequested: boolean;
  private stepping = false;
  private cancelled = false;
  private readonly queue: Waiter[] = [];
  private readonly repls = new Map<string, Repl>();
  private readonly events: DebuggerEvents;
  /** Called at every gate before anything else (fork replay bookkeeping hooks in here). */
  beforeGate: ((run: GateRun) => void) | null = null;

  constructor(breakpoints: Breakpoint[], startPaused: boolean, events: DebuggerEvents) {
    this.breakpoints = breakpoints;
    this.pauseRequested = startPaused;
    this.events = events;
  }

  get paused(): PauseInfo | null {
    return this.queue[0]?.info ?? null;
  }

  setBreakpoints(b: Breakpoint[]): void {
    this.breakpoints = b;
  }

  /** Stop at the next gate any run reaches. */
  pause(): void {
    if (this.queue.length === 0) this.pauseRequested = true;
  }

  continue(all = false): void {
    this.stepping = false;
    this.pauseRequested = false;
    const released = all ? this.queue.splice(0) : this.queue.splice(0, 1);
    this.emit();
    for (const w of released) w.release();
  }

  step(): void {
    const front = this.queue.shift();
    if (!front) {
      this.pauseRequested = true;
      return;
    }
    // Another run already waiting is the next stop; otherwise stop at the next gate.
    if (this.queue.length === 0) this.stepping = true;
    this.emit();
    front.release();
  }

  /** Releases everything for good; the engine sees the abort right after its gate. */
  cancel(): void {
    this.cancelled = true;
    this.continue(true);
  }

  /** Edits the reply the front pause holds; only valid when paused after a reply. */
  edit(input: ReplyEditInput): PauseInfo {
    const front = this.queue[0];
    if (!front || front.info.kind !== 'after_reply' || front.info.reply === null) {
      throw new Error('the session is not paused after a model reply');
    }
    const edit: ReplyEdit = { ...(front.edit ?? {}) };
    const reply = front.info.reply;
    if (input.text !== undefined) {
      edit.text = input.text;
      delete edit.blocks;
      reply.text = input.text;
      reply.blocks = findBlocks(input.text);
    }
    if (input.blocks) {
      const blocks: Record<number, string> = { ...(edit.blocks ?? {}) };
      for (const [k, code] of Object.entries(input.blocks)) {
        const i = Number(k);
        if (i >= reply.blocks.length) throw new Error(`the reply has ${reply.blocks.length} block(s); there is no block ${i}`);
        blocks[i] = code;
        reply.blocks[i] = code;
      }
      edit.blocks = blocks;
    }
    front.edit = edit;
    this.emit();
    return front.info;
  }

  /** The REPL of a run seen at a gate, for listing variables while paused. */
  replOf(runId: string): Repl | null {
    return this.repls.get(runId) ?? null;
  }

  forgetRun(runId: string): void {
    this.repls.delete(runId);
  }

  private matches(kind: BreakpointKind, run: GateRun, iteration: number): boolean {
    return this.breakpoints.some(
      (b) =>
        b.kind === kind &&
        (b.depths === undefined || b.depths.includes(run.depth)) &&
        (b.runIds === undefined || b.runIds.includes(run.runId)) &&
        (b.iterations === undefined || b.iterations.includes(iteration)),
    );
  }

  private emit(): void {
    this.events.onPause(this.paused);
  }

  private async hold(
    kinds: BreakpointKind[],
    run: GateRun,
    at: { iteration: number; block: number | null; reply: PauseInfo['reply'] },
  ): Promise<ReplyEdit | null> {
    this.repls.set(run.runId, run.repl);
    this.beforeGate?.(run);
    if (this.cancelled) return null;
    const hit = kinds.find((k) => this.matches(k, run, at.iteration));
    let kind: PauseInfo['kind'];
    if (hit !== undefined) kind = hit;
    else if (this.pauseRequested || this.stepping) kind = this.pauseRequested ? 'manual' : (kinds[kinds.length - 1] ?? 'manual');
    else return null;
    this.pauseRequested = false;
    this.stepping = false;
    const info: PauseInfo = { kind, runId: run.runId, depth: run.depth, iteration: at.iteration, block: at.block, reply: at.reply };
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const waiter: Waiter = { info, edit: null, release };
    this.queue.push(waiter);
    if (this.queue.length === 1) this.emit();
    await released;
    return waiter.edit;
  }

  gates(): EngineGates {
    return {
      beforeModelCall: async (run: GateRun, iteration: number, _messages: readonly ChatMessage[]) => {
        await this.hold(['before_model_call'], run, { iteration, block: null, reply: null });
      },
      afterReply: async (run: GateRun, iteration: number, reply: string, blocks: readonly string[]) => {
        const edit = await this.hold(['after_reply'], run, { iteration, block: null, reply: { text: reply, blocks: [...blocks] } });
        return edit ?? undefined;
      },
      afterBlock: async (run: GateRun, iteration: number, block: number, failed: boolean) => {
        await this.hold(failed ? ['on_error', 'after_block'] : ['after_block'], run, { iteration, block, reply: null });
      },
      onSubcallStart: async (run: GateRun, iteration: number, block: number) => {
        await this.hold(['on_subcall_start'], run, { iteration, block, reply: null });
      },
    };
  }
}
