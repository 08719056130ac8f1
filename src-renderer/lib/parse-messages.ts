// The messages between the page and the parse worker (workers/parse.worker.ts): what the page
// asks for, and what the worker answers. Types only, so the page, the store and the worker
// depend on this contract and not on each other.
import type { LogHeader, TrajectoryEvent } from '../../src-shared/events.ts';
import type { LogFormat } from '../../src-shared/codecs/detect.ts';
import type { Cut, LineCut } from './elision.ts';

export type ParseOut =
  | { kind: 'format'; format: LogFormat }
  | { kind: 'header'; header: LogHeader }
  /** A reference-library log's events (nothing is left out of those). */
  | { kind: 'events'; events: TrajectoryEvent[] }
  /**
   * A native log's next whole lines as UTF-8 (their own buffer, transferred), for the page
   * to decode and parse (`NativeTextReader`), with the cuts made in them; nothing else about
   * the log's content comes from the worker. All ASCII, or a single line.
   */
  | { kind: 'lines'; bytes: Uint8Array; cuts?: LineCut[] }
  | { kind: 'texts'; id: number; texts: (string | null)[]; problems: string[] }
  | { kind: 'problems'; list: string[] }
  | { kind: 'progress'; bytes: number; total: number }
  /** `spent`: the worker's time by phase (waiting for bytes, cutting and decoding, parsing and checking, posting). */
  | { kind: 'done'; ms: number; spent: Spent }
  | { kind: 'error'; message: string };

/**
 * A dropped/picked file, or a host session's log fetched from `/api/log` (same origin), to
 * read. `elideOver`: `content` and `prompt` strings of at least this many bytes are left out
 * of a native log's events (null: none); by default those of 1 KiB or more, in logs of
 * 8 MiB or more.
 */
export type ParseIn = ({ file: Blob } | { url: string }) & { elideOver?: number | null };
/** Asks for the whole texts of left-out strings (`texts` is the request's id). */
export type TextsIn = { texts: number; source: Blob | string; cuts: Cut[] };

/** Milliseconds by phase; `decode` is cutting and decoding, or for a native log cutting and copying out. */
export interface Spent {
  read: number;
  decode: number;
  parse: number;
  post: number;
}

/** Hands a message to the page (`transfer`: buffers that move with it; nothing to do on the page's own thread). */
export type Post = (m: ParseOut, transfer?: Transferable[]) => void;
