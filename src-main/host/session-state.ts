// The host's record of each session (live, re-executed or saved), the table that holds them,
// and the two ways a command reaches a live session's worker.
//
// "Session" here is the protocol's: a log the app lists and drives, under the id clients use
// (`sessionId`). It is not the engine's conversation (`RlmConversation`: a REPL and the turns that
// share it, held by a live session's worker), nor the recording a log holds (its header's
// `sessionId`): a saved log opened here gets a new id and keeps its recorded one in `header`.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { LogFormat } from '../../src-shared/codecs/detect.ts';
import type { LogHeader, ReplChoice, TrajectoryEvent } from '../../src-shared/events.ts';
import type { Breakpoint, ContextSource, SessionStatus, SessionSummary } from '../../src-shared/protocol.ts';
import type { NativeLogFile } from '../logs/native-file-sink.ts';
import { CommandError } from './command-error.ts';
import type { SessionRecipe } from './session-recipe.ts';
import type { WorkerHandle } from './worker-launcher.ts';
import type { FromWorker, ToWorker } from './worker-protocol.ts';

export interface Session {
  id: string;
  title: string;
  status: SessionStatus;
  message: string | null;
  logFile: string | null;
  format: LogFormat;
  readOnly: boolean;
  createdAt: string;
  model: string | null;
  pause: SessionSummary['pause'];
  forkOf: SessionSummary['forkOf'];
  header: LogHeader | null;
  /** Empty for a saved log kept on disk (`onDisk`): read from `logFile` when needed. */
  events: TrajectoryEvent[];
  onDisk: boolean;
  /** Events so far (the next `seq`), in memory or on disk. */
  count: number;
  recipe: SessionRecipe | null;
  /** A re-execution's context and language: what a fork of it starts from (it has no recipe). */
  rerunSource: { context: ContextSource; repl: ReplChoice; tools: string | null } | null;
  /** A saved evaluation log's task and its context, from the evaluation's dataset (eval/task-context.ts). */
  taskContext: { taskId: string; source: ContextSource } | null;
  breakpoints: Breakpoint[];
  worker: WorkerHandle | null;
  log: NativeLogFile | null;
  stderrTail: string;
  nextReq: number;
  pending: Map<number, (r: z.infer<typeof FromWorker> & { t: 'result' }) => void>;
  /** Resolves when a saved log has been read to its end. */
  loaded: Promise<void>;
  killTimer: NodeJS.Timeout | null;
  /** Its worker keeps the REPL after a finished turn (live sessions; not re-executions). */
  followUps: boolean;
  /** Finished, and its worker holds the REPL for a follow-up now. */
  kept: { since: number; timer: NodeJS.Timeout } | null;
  /** Why a follow-up can no longer be asked (the REPL was released), in words. */
  followUpGone: string | null;
}

export const TERMINAL: ReadonlySet<SessionStatus> = new Set(['finished', 'failed', 'cancelled', 'saved']);

/** Every session of this host by id, and whether the host is shutting down. */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  /** The host is shutting down: no session starts, no stream goes on. */
  closed = false;

  find(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  values(): IterableIterator<Session> {
    return this.sessions.values();
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  get(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new CommandError('not_found', `no session ${id}`);
    return s;
  }

  live(id: string): Session {
    const s = this.get(id);
    if (s.readOnly) throw new CommandError('read_only', `session ${id} is a saved log; it cannot be driven`);
    return s;
  }

  add(fields: Partial<Session> & Pick<Session, 'title' | 'status' | 'readOnly' | 'format'>): Session {
    const s: Session = {
      id: randomUUID(),
      message: null,
      logFile: null,
      createdAt: new Date().toISOString(),
      model: null,
      pause: null,
      forkOf: null,
      header: null,
      events: [],
      onDisk: false,
      count: 0,
      recipe: null,
      rerunSource: null,
      taskContext: null,
      breakpoints: [],
      worker: null,
      log: null,
      stderrTail: '',
      nextReq: 0,
      pending: new Map(),
      loaded: Promise.resolve(),
      killTimer: null,
      followUps: false,
      kept: null,
      followUpGone: null,
      ...fields,
    };
    this.sessions.set(s.id, s);
    return s;
  }
}

export function toWorker(s: Session, msg: ToWorker): void {
  if (!s.worker || !s.worker.connected) throw new CommandError('conflict', `session ${s.id} has no running worker`);
  s.worker.send(msg);
}

/** A command the worker answers (`result` with the same `req`). */
export function request(s: Session, make: (req: number) => ToWorker): Promise<z.infer<typeof FromWorker> & { t: 'result' }> {
  if (TERMINAL.has(s.status)) throw new CommandError('conflict', `session ${s.id} has ${s.status}`);
  const req = s.nextReq++;
  return new Promise((res, rej) => {
    s.pending.set(req, (r) => (r.ok ? res(r) : rej(new CommandError('conflict', r.error ?? 'refused'))));
    try {
      toWorker(s, make(req));
    } catch (err) {
      s.pending.delete(req);
      rej(err);
    }
  });
}
