// Saved logs as read-only sessions: opened from a file (streamed in batches, large ones kept on
// disk) or from text, exported in either format, and the runs folder's recent logs.
import { readdir, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { basename, join, resolve } from 'node:path';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { AnyLogReader, type LogItem } from '../../src-shared/codecs/detect.ts';
import { formatProblem } from '../../src-shared/codecs/lines.ts';
import { encodeNative } from '../../src-shared/codecs/native.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import { exportRlmPython } from '../../src-shared/codecs/rlm-python-export.ts';
import { asSessionId, type TrajectoryEvent } from '../../src-shared/events.ts';
import type { RecentRun, Replies } from '../../src-shared/protocol.ts';
import { evalTaskContext } from '../eval/task-context.ts';
import { readLogBatches } from '../logs/read-log.ts';
import { CommandError } from './command-error.ts';
import type { HostOptions } from './host-options.ts';
import type { Session, SessionTable } from './session-state.ts';
import type { Subscribers } from './subscribers.ts';

/** All events of a session (read back from its file when kept on disk). */
export async function eventsOf(s: Session): Promise<TrajectoryEvent[]> {
  await s.loaded;
  if (!s.onDisk || s.logFile === null) return s.events;
  const out: TrajectoryEvent[] = [];
  for await (const items of readLogBatches(s.logFile)) for (const item of items) if (item.kind === 'event') out.push(item.event);
  return out;
}

export class SavedLogs {
  private readonly opts: Pick<HostOptions, 'runsDir' | 'inMemoryLogMaxBytes'>;
  private readonly sessions: SessionTable;
  private readonly subscribers: Subscribers;

  constructor(opts: Pick<HostOptions, 'runsDir' | 'inMemoryLogMaxBytes'>, sessions: SessionTable, subscribers: Subscribers) {
    this.opts = opts;
    this.sessions = sessions;
    this.subscribers = subscribers;
  }

  async open(path: string): Promise<Session> {
    const abs = resolve(path);
    // Looked up while the log is read: what the coverage map, a fork or a re-execution runs on.
    const taskContext = evalTaskContext(abs).catch(() => null);
    let size: number;
    try {
      const st = await stat(abs);
      if (!st.isFile()) throw new CommandError('bad_request', `${path} is not a file`);
      size = st.size;
    } catch (err) {
      if (err instanceof CommandError) throw err;
      throw new CommandError('not_found', `cannot open ${path}: ${fileErrorText(err)}`);
    }
    const s = this.sessions.add({ title: basename(abs), status: 'saved', readOnly: true, format: 'native', logFile: abs });
    // A large log is not held in memory; subscriptions stream it from the file.
    s.onDisk = size > (this.opts.inMemoryLogMaxBytes ?? 64 * 1024 * 1024);
    const problems: string[] = [];
    const iterator = readLogBatches(abs, { onProgress: (bytesRead, totalBytes) => this.subscribers.progress(s, bytesRead, totalBytes) })[
      Symbol.asyncIterator
    ]();
    const take = (batch: LogItem[]): void => this.takeItems(s, batch, problems);
    let first: IteratorResult<LogItem[]>;
    try {
      first = await iterator.next();
    } catch (err) {
      this.sessions.delete(s.id);
      throw new CommandError('bad_request', `cannot read ${path}: ${(err as Error).message}`);
    }
    if (!first.done) take(first.value);
    if (s.count === 0 && problems.length > 0 && s.header === null && !first.done && first.value.every((i) => i.kind === 'problem')) {
      this.sessions.delete(s.id);
      throw new CommandError('bad_request', `${path}: ${problems[0]}`);
    }
    if (first.done && size === 0) {
      this.sessions.delete(s.id);
      throw new CommandError('bad_request', `${path}: the file is empty`);
    }
    const known = taskContext.then((task) => {
      if (task?.found) s.taskContext = { taskId: task.task.id, source: task.source };
    });
    // Waited for a second at most: a dataset of many large inline contexts takes longer to read.
    await Promise.race([known, sleep(1000, undefined, { ref: false })]);
    s.loaded = (async () => {
      try {
        for (let r = first; !r.done; r = await iterator.next()) if (r !== first) take(r.value);
      } catch (err) {
        problems.push(`reading stopped: ${(err as Error).message}`);
      }
      if (problems.length > 0) {
        s.message = `${problems.length} problem(s) reading the log; first: ${problems[0]}`;
      }
      this.subscribers.markDirty(s.id);
      this.subscribers.broadcast(s);
    })();
    return s;
  }

  private takeItems(s: Session, batch: LogItem[], problems: string[]): void {
    const events: TrajectoryEvent[] = [];
    for (const item of batch) {
      if (item.kind === 'format') s.format = item.format;
      else if (item.kind === 'header') {
        s.header = item.header;
        s.createdAt = item.header.createdAt;
        if (item.header.forkOf)
          s.forkOf = { sessionId: item.header.forkOf.sessionId, runId: item.header.forkOf.runId, iteration: item.header.forkOf.iteration };
      } else if (item.kind === 'event') events.push(item.event);
      else if (item.kind === 'problem' && item.problem.severity === 'error') problems.push(formatProblem(item.problem));
    }
    this.subscribers.append(s, events);
  }

  openText(name: string, text: string): Session {
    const s = this.sessions.add({ title: name, status: 'saved', readOnly: true, format: 'native' });
    const reader = new AnyLogReader();
    const problems: string[] = [];
    this.takeItems(s, [...reader.push(text), ...reader.end()], problems);
    if (reader.detected === null) {
      this.sessions.delete(s.id);
      throw new CommandError('bad_request', `${name}: ${problems[0] ?? 'not a log this host can read'}`);
    }
    if (problems.length > 0) s.message = `${problems.length} problem(s) reading the log; first: ${problems[0]}`;
    return s;
  }

  async exportSession(id: string, format: 'native' | 'rlm-python'): Promise<Replies['session.export']> {
    const s = this.sessions.get(id);
    const events = await eventsOf(s);
    const base = (s.logFile ? basename(s.logFile) : s.title).replace(/\.(rlm\.)?jsonl?$/, '').replace(/[^\w.-]+/g, '_') || 'session';
    if (format === 'native') {
      const header = s.header ?? makeHeader(asSessionId(s.id), new Date(s.createdAt));
      return { fileName: `${base}.rlm.jsonl`, text: [...encodeNative(header, events)].join('') };
    }
    return { fileName: `${base}.jsonl`, text: exportRlmPython(events, s.header).join('') };
  }

  async recentRuns(limit: number): Promise<RecentRun[]> {
    let names: string[];
    try {
      names = await readdir(this.opts.runsDir);
    } catch {
      return [];
    }
    const runs: RecentRun[] = [];
    for (const name of names) {
      if (!name.endsWith('.rlm.jsonl')) continue;
      const path = join(this.opts.runsDir, name);
      try {
        const st = await stat(path);
        runs.push({ path, name, sizeBytes: st.size, modifiedAt: st.mtime.toISOString() });
      } catch {
        // Deleted between readdir and stat.
      }
    }
    runs.sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
    return runs.slice(0, limit);
  }
}
