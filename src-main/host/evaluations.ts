// `eval.open`: an evaluation folder's rows, with its first task logs opened as saved sessions.
import type { EvalOverview, Replies, SessionSummary } from '../../src-shared/protocol.ts';
import { EvalDirError, readEvalDir } from '../eval/open-dir.ts';
import { CommandError } from './command-error.ts';
import type { SavedLogs } from './saved-logs.ts';
import type { SessionTable } from './session-state.ts';
import type { Subscribers } from './subscribers.ts';

export class Evaluations {
  private readonly sessions: SessionTable;
  private readonly savedLogs: SavedLogs;
  private readonly subscribers: Subscribers;
  /** Log file → the read-only session it was opened as by `eval.open` (opening again reuses it). */
  private readonly evalLogSessions = new Map<string, string>();

  constructor(sessions: SessionTable, savedLogs: SavedLogs, subscribers: Subscribers) {
    this.sessions = sessions;
    this.savedLogs = savedLogs;
    this.subscribers = subscribers;
  }

  /** An evaluation directory: its rows, and its first `openLogs` task logs as saved sessions. */
  async openEval(path: string, openLogs: number, scorer?: string): Promise<Replies['eval.open']> {
    let evaluation: EvalOverview;
    try {
      evaluation = readEvalDir(path, scorer === undefined ? {} : { scorer });
    } catch (err) {
      if (err instanceof EvalDirError) throw new CommandError(err.code, err.message);
      throw err;
    }
    const sessions: SessionSummary[] = [];
    for (const row of evaluation.tasks) {
      if (row.logFile === null) continue;
      const known = this.evalLogSessions.get(row.logFile);
      const s = known !== undefined ? this.sessions.find(known) : undefined;
      if (s) row.sessionId = s.id;
      else if (sessions.length < openLogs) {
        try {
          const opened = await this.savedLogs.open(row.logFile);
          opened.title = `${evaluation.name}/${row.id}`;
          this.evalLogSessions.set(row.logFile, opened.id);
          row.sessionId = opened.id;
        } catch (err) {
          evaluation.problems.push(`the log of ${row.id} could not be opened: ${(err as Error).message}`);
          continue;
        }
      } else continue;
      const opened = this.sessions.find(row.sessionId);
      if (opened) sessions.push(this.subscribers.summary(opened));
    }
    return { evaluation, sessions };
  }
}
