// The runs browser (`runs.watch`): the session logs and evaluation folders of the runs folder
// and of folders a client adds, one row each, and the rows that change pushed to the clients
// that watch them. A row is read from a log's first lines and last bytes, or an evaluation's
// small files, and kept by modification time and size, so a folder of thousands of logs is
// listed again with a stat per file. Changes arrive through fs.watch (debounced); a slow sweep
// catches what it misses and runs that stop being written to (live → interrupted).
import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { StopReason } from '../../src-shared/events.ts';
import type { EvalOverview, HostMessage, ListingStatus, RunListing, RunsListing } from '../../src-shared/protocol.ts';
import { isEvalDir, readEvalDir } from '../eval/open-dir.ts';
import { type LogSummary, readLogSummary } from '../logs/log-summary.ts';
import type { Client } from './subscribers.ts';

/** A log with no end written to within this long is still running (a model call can take minutes); older, it was interrupted. */
const LIVE_LOG_WITHIN_MS = 5 * 60_000;
/** A running evaluation rewrites progress.json at least this often (as open-dir.ts says). */
const LIVE_EVAL_WITHIN_MS = 15_000;
const DEBOUNCE_MS = 200;
const SWEEP_MS = 10_000;
/** Files read at once when a folder is listed for the first time. */
const READ_CONCURRENCY = 16;
const EVAL_FILES = ['results.jsonl', 'progress.json', 'eval.json', 'summary.json'];

type Facts = { kind: 'run'; summary: LogSummary } | { kind: 'evaluation'; overview: EvalOverview; repl: 'javascript' | 'python' | null };

interface Cached {
  key: string;
  facts: Facts;
  mtimeMs: number;
  sizeBytes: number;
}

export interface RunsBrowserDeps {
  runsDir: string;
  /** Log files of this host's sessions that are running now. */
  liveLogs(): ReadonlySet<string>;
  send(client: Client, m: HostMessage): void;
}

function statusOfStop(r: StopReason): ListingStatus {
  if (r === 'answered') return 'finished';
  if (r === 'error') return 'failed';
  if (r === 'cancelled') return 'cancelled';
  return 'limit';
}

function runRow(path: string, folder: string, c: Cached, s: LogSummary, live: boolean, now: number): RunListing {
  const base = {
    kind: 'run' as const,
    path,
    folder,
    name: basename(path),
    modifiedAt: new Date(c.mtimeMs).toISOString(),
    sizeBytes: c.sizeBytes,
    score: null,
  };
  if (!s.native)
    return {
      ...base,
      status: 'failed',
      detail: 'not a log this app writes (no rlm-studio header)',
      model: null,
      repl: null,
      costUsd: null,
      unpriced: 0,
      durationMs: null,
      startedAt: base.modifiedAt,
      turns: null,
    };
  const last = s.ends.at(-1);
  const ended = last !== undefined && !s.inTurn;
  const fresh = now - c.mtimeMs < LIVE_LOG_WITHIN_MS;
  const status: ListingStatus = live ? 'live' : ended ? statusOfStop(last.stopReason) : fresh ? 'live' : 'interrupted';
  const startedAt = s.createdAt ?? base.modifiedAt;
  const priced = s.ends.filter((e) => e.costUsd !== null);
  const exact = s.allTurns && ended;
  return {
    ...base,
    status,
    detail: status === 'live' ? 'running' : ended ? (last.message ?? last.stopReason) : 'no end recorded (the process stopped?)',
    model: s.model,
    repl: s.repl,
    // Unknown is null: a run in progress, turns not read, or no call with a price.
    costUsd: exact && priced.length > 0 ? priced.reduce((a, e) => a + (e.costUsd ?? 0), 0) : null,
    unpriced: exact ? s.ends.length - priced.length : 0,
    durationMs: exact ? s.ends.reduce((a, e) => a + e.durationMs, 0) : Math.max(0, c.mtimeMs - Date.parse(startedAt)) || null,
    startedAt,
    turns: s.turns,
  };
}

function evalRow(path: string, folder: string, c: Cached, o: EvalOverview, repl: RunListing['repl'], now: number): RunListing {
  const p = o.progress;
  const status: ListingStatus =
    p === null
      ? 'finished'
      : p.state === 'running' && now - Date.parse(p.updatedAt) < LIVE_EVAL_WITHIN_MS
        ? 'live'
        : p.state === 'finished'
          ? 'finished'
          : 'interrupted';
  const priced = o.tasks.filter((t) => t.costUsd !== null);
  return {
    kind: 'evaluation',
    path,
    folder,
    name: o.name,
    status,
    detail: p ? `${p.done}/${p.total} sessions done${p.failed > 0 ? `, ${p.failed} failed` : ''}` : null,
    model: o.settings.model,
    repl,
    score: { correct: o.tasks.filter((t) => t.correct).length, finished: o.tasks.length, total: o.datasetTasks },
    costUsd: priced.length > 0 ? priced.reduce((a, t) => a + (t.costUsd ?? 0), 0) : null,
    unpriced: o.tasks.length - priced.length,
    durationMs: p ? Math.max(0, Date.parse(p.updatedAt) - Date.parse(p.startedAt)) : null,
    startedAt: o.settings.createdAt ?? p?.startedAt ?? new Date(c.mtimeMs).toISOString(),
    modifiedAt: new Date(c.mtimeMs).toISOString(),
    sizeBytes: c.sizeBytes,
    turns: null,
  };
}

async function evalRepl(dir: string): Promise<RunListing['repl']> {
  try {
    const r = (JSON.parse(await readFile(join(dir, 'eval.json'), 'utf8')) as { repl?: unknown }).repl;
    return r === 'python' || r === 'javascript' ? r : null;
  } catch {
    return null;
  }
}

/** Runs `f` over `items`, at most `n` at once. */
async function eachLimited<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await f(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, lane));
}

export class RunsBrowser {
  private readonly deps: RunsBrowserDeps;
  private readonly runsDir: string;
  private readonly cache = new Map<string, Cached>();
  /** What each watching client asked for (the runs folder first). */
  private readonly clients = new Map<Client, string[]>();
  /** Per folder: its rows as last told (JSON), to push only what changed. */
  private readonly told = new Map<string, Map<string, string>>();
  private readonly watchers = new Map<string, FSWatcher>();
  /** Per folder, what to read again: the entries an fs.watch event named, or all of it (a sweep, an event with no name). */
  private readonly dirty = new Map<string, Set<string> | 'all'>();
  private debounce: NodeJS.Timeout | null = null;
  private sweep: NodeJS.Timeout | null = null;
  private scanning: Promise<void> = Promise.resolve();

  constructor(deps: RunsBrowserDeps) {
    this.deps = deps;
    this.runsDir = resolve(deps.runsDir);
  }

  /** Lists the runs folder and `folders` for `client`, and keeps it told of changes. */
  async watch(client: Client, folders: readonly string[]): Promise<RunsListing> {
    const all = [...new Set([this.runsDir, ...folders.map((f) => resolve(f))])];
    this.clients.set(client, all);
    const entries: RunListing[] = [];
    const problems: string[] = [];
    for (const folder of all) {
      const r = await this.rescan(folder, client);
      entries.push(...r.rows);
      if (r.problem) problems.push(r.problem);
      this.watchFolder(folder);
    }
    if (!this.sweep) {
      this.sweep = setInterval(() => this.markAll(), SWEEP_MS);
      this.sweep.unref();
    }
    return { runsDir: this.runsDir, folders: all, entries, problems };
  }

  unwatch(client: Client): void {
    this.clients.delete(client);
    this.dropUnwatched();
  }

  /** Stops every watcher (the host is closing). */
  close(): void {
    this.clients.clear();
    this.dropUnwatched();
  }

  /** Folders no client watches any longer keep no watcher alive. */
  private dropUnwatched(): void {
    const wanted = new Set([...this.clients.values()].flat());
    for (const [path, w] of this.watchers) {
      const folder = this.folderOfWatch(path);
      if (folder !== null && wanted.has(folder)) continue;
      w.close();
      this.watchers.delete(path);
      this.watchOwner.delete(path);
    }
    for (const f of [...this.told.keys()]) if (!wanted.has(f)) this.told.delete(f);
    if (this.clients.size === 0 && this.sweep) {
      clearInterval(this.sweep);
      this.sweep = null;
    }
  }

  private readonly watchOwner = new Map<string, string>();

  private folderOfWatch(path: string): string | null {
    return this.watchOwner.get(path) ?? null;
  }

  private watchPath(path: string, folder: string): void {
    if (this.watchers.has(path)) return;
    try {
      // The folder's event names the entry that changed; an evaluation's names a file inside it (the entry is the folder).
      const w = watch(path, { persistent: false }, (_, name) =>
        this.mark(folder, path !== folder ? path : typeof name === 'string' && name !== '' ? join(folder, name) : null),
      );
      // A folder that goes away ends its watcher; the sweep still lists it (as empty or gone).
      w.on('error', () => {
        w.close();
        this.watchers.delete(path);
        this.watchOwner.delete(path);
      });
      this.watchers.set(path, w);
      this.watchOwner.set(path, folder);
    } catch {
      // Not there (yet), or no more watchers: the sweep keeps it current, only later.
    }
  }

  private watchFolder(folder: string): void {
    this.watchPath(folder, folder);
    for (const [path, c] of this.cache)
      if (c.facts.kind === 'evaluation' && (path === folder || resolve(path, '..') === folder)) this.watchPath(path, folder);
  }

  /** `entry`: the log or evaluation folder that changed, or null for the whole folder. */
  private mark(folder: string, entry: string | null): void {
    const had = this.dirty.get(folder);
    if (entry === null || had === 'all') this.dirty.set(folder, 'all');
    else this.dirty.set(folder, new Set([...(had ?? []), entry]));
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      const work = [...this.dirty];
      this.dirty.clear();
      this.scanning = this.scanning.then(async () => {
        for (const [f, what] of work) await (what === 'all' ? this.rescan(f, null) : this.rescanEntries(f, what));
      });
    }, DEBOUNCE_MS);
  }

  private markAll(): void {
    for (const f of new Set([...this.clients.values()].flat())) this.mark(f, null);
  }

  /** Pushes `changed` and `removed` rows of `folder` to the clients that watch it (but `asking`). */
  private tell(folder: string, changed: RunListing[], removed: string[], problem: string | null, asking: Client | null): void {
    if (changed.length === 0 && removed.length === 0) return;
    const m: HostMessage = { kind: 'runs', changed, removed, problems: problem ? [problem] : [] };
    for (const [c, folders] of this.clients) if (c !== asking && folders.includes(folder)) this.deps.send(c, m);
  }

  /**
   * Reads again only the entries an event named (a live run's log is written many times a
   * second; the other thousands of rows stay as they are): each becomes a row, or goes away.
   */
  private async rescanEntries(folder: string, entries: ReadonlySet<string>): Promise<void> {
    // A folder that is itself an evaluation has one row; its events name files inside it.
    if (isEvalDir(folder)) return void (await this.rescan(folder, null));
    const told = this.told.get(folder) ?? new Map<string, string>();
    const live = this.deps.liveLogs();
    const now = Date.now();
    const changed: RunListing[] = [];
    const removed: string[] = [];
    for (const path of entries) {
      const kind = path.endsWith('.rlm.jsonl') ? 'run' : isEvalDir(path) ? 'evaluation' : null;
      const row = kind === null ? null : await this.row(path, folder, kind, live, now);
      if (row === null) {
        this.cache.delete(path);
        if (told.delete(path)) removed.push(path);
        continue;
      }
      const json = JSON.stringify(row);
      if (told.get(path) === json) continue;
      told.set(path, json);
      changed.push(row);
      if (kind === 'evaluation') this.watchPath(path, folder);
    }
    this.told.set(folder, told);
    this.tell(folder, changed, removed, null, null);
  }

  /**
   * Reads `folder` again and pushes what changed since it was last told to every client that
   * watches it (but `asking`, which gets the whole list in its reply).
   */
  private async rescan(folder: string, asking: Client | null): Promise<{ rows: RunListing[]; problem: string | null }> {
    const { rows, problem } = await this.list(folder);
    const before = this.told.get(folder) ?? new Map<string, string>();
    const now = new Map(rows.map((r) => [r.path, JSON.stringify(r)]));
    const changed = rows.filter((r) => before.get(r.path) !== now.get(r.path));
    const removed = [...before.keys()].filter((p) => !now.has(p));
    this.told.set(folder, now);
    this.tell(folder, changed, removed, problem, asking);
    this.watchFolder(folder);
    return { rows, problem };
  }

  private async list(folder: string): Promise<{ rows: RunListing[]; problem: string | null }> {
    const live = this.deps.liveLogs();
    const now = Date.now();
    if (isEvalDir(folder)) {
      const row = await this.row(folder, folder, 'evaluation', live, now);
      return { rows: row ? [row] : [], problem: null };
    }
    let names: import('node:fs').Dirent[];
    try {
      names = await readdir(folder, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // The runs folder is made by the first run; before that it is simply empty.
      if (code === 'ENOENT' && folder === this.runsDir) return { rows: [], problem: null };
      return {
        rows: [],
        problem: `${folder}: ${code === 'ENOENT' ? 'no such folder' : code === 'ENOTDIR' ? 'not a folder' : (err as Error).message}`,
      };
    }
    const candidates: { path: string; kind: 'run' | 'evaluation' }[] = [];
    for (const d of names) {
      const path = join(folder, d.name);
      if (d.isFile() && d.name.endsWith('.rlm.jsonl')) candidates.push({ path, kind: 'run' });
      else if (d.isDirectory() && isEvalDir(path)) candidates.push({ path, kind: 'evaluation' });
    }
    const rows: RunListing[] = [];
    await eachLimited(candidates, READ_CONCURRENCY, async (c) => {
      const row = await this.row(c.path, folder, c.kind, live, now);
      if (row) rows.push(row);
    });
    const seen = new Set(candidates.map((c) => c.path));
    for (const path of this.cache.keys()) if (resolve(path, '..') === folder && !seen.has(path)) this.cache.delete(path);
    return { rows, problem: null };
  }

  /** One row, read again only when its files changed; null when it went away meanwhile. */
  private async row(
    path: string,
    folder: string,
    kind: 'run' | 'evaluation',
    live: ReadonlySet<string>,
    now: number,
  ): Promise<RunListing | null> {
    try {
      const stats = kind === 'run' ? [await stat(path)] : await Promise.all(EVAL_FILES.map((f) => stat(join(path, f)).catch(() => null)));
      const present = stats.filter((s) => s !== null);
      const key = stats.map((s) => (s ? `${s.mtimeMs}:${s.size}` : '-')).join('|');
      let c = this.cache.get(path);
      if (c?.key !== key) {
        const facts: Facts =
          kind === 'run'
            ? { kind, summary: await readLogSummary(path) }
            : { kind, overview: readEvalDir(path), repl: await evalRepl(path) };
        c = {
          key,
          facts,
          mtimeMs: Math.max(0, ...present.map((s) => s.mtimeMs)),
          sizeBytes: present.reduce((a, s) => a + s.size, 0),
        };
        this.cache.set(path, c);
      }
      const f = c.facts;
      return f.kind === 'run' ? runRow(path, folder, c, f.summary, live.has(path), now) : evalRow(path, folder, c, f.overview, f.repl, now);
    } catch {
      return null;
    }
  }
}
