// Follow-up turns: a finished live session's worker keeps its REPL for a while, and a
// follow-up runs another completion in it, appended to the same log.
import { statSync } from 'node:fs';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import type { ContextSource, FollowUp } from '../../src-shared/protocol.ts';
import { CommandError } from './command-error.ts';
import type { HostOptions } from './host-options.ts';
import { type Session, type SessionTable, TERMINAL, toWorker } from './session-state.ts';
import type { ToWorker } from './worker-protocol.ts';

export function followUpState(s: Session): { ready: boolean; reason: string | null } {
  if (s.kept) return { ready: true, reason: null };
  if (s.readOnly)
    return { ready: false, reason: 'a saved or imported log keeps no REPL to continue in; fork it from an iteration instead' };
  if (!TERMINAL.has(s.status)) return { ready: false, reason: `the session is ${s.status}; ask once it has finished` };
  if (s.followUpGone) return { ready: false, reason: s.followUpGone };
  if (!s.followUps) return { ready: false, reason: 'a re-execution cannot be followed up' };
  return {
    ready: false,
    reason: `a ${s.status} session's REPL is not kept; only a finished one (answered, stopped at a limit or cancelled) can be followed up`,
  };
}

/** A follow-up's context problems the worker would only find later, as a bad request now. */
function checkContext(c: ContextSource): void {
  if (c.kind === 'json') {
    try {
      JSON.parse(c.json);
    } catch (err) {
      throw new CommandError('bad_request', `the JSON context does not parse: ${(err as Error).message}`);
    }
  } else if (c.kind === 'file') {
    let isFile: boolean;
    try {
      isFile = statSync(c.path).isFile();
    } catch (err) {
      throw new CommandError('bad_request', `cannot read context file ${c.path}: ${fileErrorText(err)}`);
    }
    if (!isFile) throw new CommandError('bad_request', `context file ${c.path} is not a file`);
  }
}

export class FollowUps {
  private readonly sessions: SessionTable;
  private readonly opts: Pick<HostOptions, 'followUpIdleMs' | 'followUpKeep'>;
  private readonly broadcast: (s: Session) => void;

  constructor(sessions: SessionTable, opts: Pick<HostOptions, 'followUpIdleMs' | 'followUpKeep'>, broadcast: (s: Session) => void) {
    this.sessions = sessions;
    this.opts = opts;
    this.broadcast = broadcast;
  }

  /** Another turn in a finished session's kept REPL, appended to the same log. */
  followUp(f: FollowUp): Session {
    const s = this.sessions.get(f.sessionId);
    const state = followUpState(s);
    if (!state.ready || !s.kept) {
      throw new CommandError(
        s.readOnly ? 'read_only' : 'conflict',
        `session ${s.id} cannot take a follow-up: ${state.reason ?? 'its REPL is not kept'}`,
      );
    }
    if (f.context) checkContext(f.context);
    clearTimeout(s.kept.timer);
    s.kept = null;
    s.status = 'running';
    s.message = null;
    toWorker(s, { t: 'followUp', query: f.query, context: f.context ?? null, breakpoints: s.breakpoints });
    this.broadcast(s);
    return s;
  }

  /** The worker holds this finished session's REPL: released when idle too long or when more are kept. */
  keep(s: Session): void {
    const idleMs = this.opts.followUpIdleMs ?? 10 * 60_000;
    const timer = setTimeout(
      () =>
        this.release(
          s,
          `its REPL was released after ${Math.round(idleMs / 60_000) || '<1'} min idle; start a new run (or fork) to continue`,
        ),
      idleMs,
    );
    timer.unref();
    s.kept = { since: performance.now(), timer };
    const kept = [...this.sessions.values()].filter((x) => x.kept !== null).sort((a, b) => a.kept!.since - b.kept!.since);
    const max = this.opts.followUpKeep ?? 4;
    for (const old of kept.slice(0, Math.max(0, kept.length - max))) {
      this.release(
        old,
        `its REPL was released to make room for newer sessions (the host keeps ${max}); start a new run (or fork) to continue`,
      );
    }
  }

  release(s: Session, reason: string): void {
    if (!s.kept) return;
    clearTimeout(s.kept.timer);
    s.kept = null;
    s.followUpGone = reason;
    if (s.worker?.connected) s.worker.send({ t: 'end' } satisfies ToWorker);
    this.broadcast(s);
  }
}
