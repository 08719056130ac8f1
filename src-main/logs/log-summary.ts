// What a runs browser needs of a native log, read from its first lines and its last bytes
// only (never the whole file, so thousands of large logs list quickly): the header, the
// root model, and the root runs' ends (stop reason, duration, usage). A turn's root `run.end`
// is the last event of that turn, so the tail holds it; the root `run.start`s in the tail tell
// how many turns there were.
import { open } from 'node:fs/promises';
import { NATIVE_FORMAT, REPL_LANGUAGES, type ReplLanguage, STOP_REASONS, type StopReason } from '../../src-shared/events.ts';

/** Read from the start of a log: the header and the first run.start's model. */
const HEAD_BYTES = 16 * 1024;
/** Read from its end first; a root run.end with a longer answer (or a turn's start further back) is looked for in longer tails. */
const TAILS = [16 * 1024, 1024 * 1024, 4 * 1024 * 1024];

interface RootEnd {
  /** The root run it ends (each turn's root run has its own id). */
  runId: string;
  stopReason: StopReason;
  message: string | null;
  durationMs: number;
  costUsd: number | null;
  calls: number;
}

export interface LogSummary {
  /** Not a native log (no rlm-studio header). */
  native: boolean;
  createdAt: string | null;
  repl: ReplLanguage | null;
  model: string | null;
  /** The root runs' ends that were read, in order. */
  ends: RootEnd[];
  /** Turns known to have started (at least 1 once the root started). */
  turns: number;
  /** A root run started after the last root end read: the session is in a turn. */
  inTurn: boolean;
  /** The ends read are every turn's (the whole log was read, or every turn's start and end were in the tail). */
  allTurns: boolean;
}

const ROOT_START = '{"type":"run.start"';
const ROOT_END = '{"type":"run.end"';
const IS_ROOT = '"parentRunId":null';

async function readAt(fd: import('node:fs/promises').FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fd.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function modelOf(startLine: string): string | null {
  try {
    return str((JSON.parse(startLine) as { model?: unknown }).model);
  } catch {
    // Longer than the head: the model is among its first fields.
    const m = /"model":("(?:[^"\\]|\\.)*")/.exec(startLine.slice(0, 4096));
    if (!m?.[1]) return null;
    try {
      return str(JSON.parse(m[1]));
    } catch {
      return null;
    }
  }
}

function rootEnd(line: string): RootEnd | null {
  try {
    const e = JSON.parse(line) as {
      runId?: unknown;
      stopReason?: unknown;
      message?: unknown;
      durationMs?: unknown;
      usage?: { costUsd?: unknown; calls?: unknown };
    };
    if (typeof e.stopReason !== 'string' || !(STOP_REASONS as readonly string[]).includes(e.stopReason)) return null;
    return {
      runId: str(e.runId) ?? '',
      stopReason: e.stopReason as StopReason,
      message: str(e.message),
      durationMs: typeof e.durationMs === 'number' ? e.durationMs : 0,
      costUsd: typeof e.usage?.costUsd === 'number' ? e.usage.costUsd : null,
      calls: typeof e.usage?.calls === 'number' ? e.usage.calls : 0,
    };
  } catch {
    return null;
  }
}

/** The root starts (their turns) and ends in `lines`, in order. */
function rootMarks(lines: string[]): ({ start: number } | { end: RootEnd })[] {
  const out: ({ start: number } | { end: RootEnd })[] = [];
  for (const line of lines) {
    if (line.startsWith(ROOT_END) && line.includes(IS_ROOT)) {
      const end = rootEnd(line);
      if (end) out.push({ end });
    } else if (line.startsWith(ROOT_START) && line.slice(0, 400).includes(IS_ROOT)) {
      const m = /"turn":(\d+)/.exec(line.slice(0, 400));
      out.push({ start: m?.[1] ? Number(m[1]) : 0 });
    }
  }
  return out;
}

export async function readLogSummary(path: string): Promise<LogSummary> {
  const fd = await open(path, 'r');
  try {
    const size = (await fd.stat()).size;
    const head = (await readAt(fd, 0, Math.min(size, HEAD_BYTES))).toString('utf8');
    const firstBreak = head.indexOf('\n');
    let header: Record<string, unknown> | null = null;
    try {
      const h = JSON.parse(firstBreak < 0 ? head : head.slice(0, firstBreak)) as unknown;
      if (typeof h === 'object' && h !== null && (h as { format?: unknown }).format === NATIVE_FORMAT)
        header = h as Record<string, unknown>;
    } catch {
      header = null;
    }
    const none: LogSummary = {
      native: false,
      createdAt: null,
      repl: null,
      model: null,
      ends: [],
      turns: 0,
      inTurn: false,
      allTurns: false,
    };
    if (header === null) return none;
    const repl = str(header['repl']);
    const second = firstBreak < 0 ? '' : head.slice(firstBreak + 1).split('\n')[0]!;
    const summary: LogSummary = {
      ...none,
      native: true,
      createdAt: str(header['createdAt']),
      repl: repl !== null && (REPL_LANGUAGES as readonly string[]).includes(repl) ? (repl as ReplLanguage) : 'javascript',
      model: second.startsWith(ROOT_START) ? modelOf(second) : null,
    };
    // The first turn's root run: a tail whose only root end is of this run is a one-turn log.
    const firstRoot = second.startsWith(ROOT_START) ? (/"runId":("(?:[^"\\]|\\.)*")/.exec(second.slice(0, 400))?.[1] ?? null) : null;
    const firstRootId = firstRoot === null ? null : (JSON.parse(firstRoot) as string);
    const whole = size <= HEAD_BYTES + TAILS[0]!;
    let marks: ({ start: number } | { end: RootEnd })[] = [];
    let complete = whole;
    for (const tailBytes of whole ? [size] : TAILS) {
      const from = Math.max(0, size - tailBytes);
      const lines = (await readAt(fd, from, size - from)).toString('utf8').split('\n');
      // The first line of a tail that starts mid-file is cut; the last may be a write under way.
      if (from > 0) lines.shift();
      complete = from === 0;
      marks = rootMarks(lines);
      // Longer when no root end is in reach (a long answer), or when it ends a later turn whose start is further back.
      const lastEnd = marks.findLast((m) => 'end' in m);
      if (complete || (lastEnd && (lastEnd.end.runId === firstRootId || marks.some((m) => 'start' in m)))) break;
    }
    const ends = marks.flatMap((m) => ('end' in m ? [m.end] : []));
    const starts = marks.flatMap((m) => ('start' in m ? [m.start] : []));
    const last = marks.at(-1);
    summary.ends = ends;
    summary.inTurn = last === undefined ? second.startsWith(ROOT_START) && ends.length === 0 : 'start' in last;
    if (complete) {
      summary.turns = starts.length;
      summary.allTurns = true;
    } else {
      // Turns are numbered from 0 and each starts after the previous one's end: the ends read
      // are all of them when the first one read belongs to turn 0. With no turn's start in the
      // tail, that is when the end read is of the first turn's root run.
      const firstStart = marks.findIndex((m) => 'start' in m);
      const firstEnd = marks.findIndex((m) => 'end' in m);
      if (firstStart < 0) {
        const first = ends.length > 0 && ends.every((e) => e.runId === firstRootId);
        summary.turns = first || ends.length === 0 ? 1 : 2;
        summary.allTurns = first;
      } else {
        summary.turns = Math.max(...starts) + 1;
        const firstEndTurn = firstStart < firstEnd ? starts[0]! : starts[0]! - 1;
        summary.allTurns = firstEnd >= 0 && firstEndTurn === 0;
      }
    }
    return summary;
  } finally {
    await fd.close();
  }
}
