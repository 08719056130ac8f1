// The two read-only routes beside the protocol, one answer for both shells: GET/HEAD
// /api/log?session=ID (a session's log file, whole or one byte range) and
// /api/context?session=ID (the context it ran on, as its recipe names it). Web mode writes
// the answer to a node:http response (ws-server.ts, after its token and Origin checks); the
// desktop shell returns it from its app:// protocol handler (../electron/main.ts). Nothing
// here imports Electron, and files are only ever read.
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { SessionContext } from '../host/endpoint.ts';

/** Where a host keeps a session's files; a RemoteHost answers asynchronously, a Host at once. */
export interface SessionFileLookups {
  /** The session's log file, or null for an unknown session (or one without a log). */
  logFileOf?: (sessionId: string) => string | null | Promise<string | null>;
  /** The context the session ran on, or null when the host does not know it. */
  contextOf?: (sessionId: string) => SessionContext | null | Promise<SessionContext | null>;
}

export interface SessionFileRequest {
  url: URL;
  method: string;
  /** The Range header, or null without one. */
  range: string | null;
}

export type ReplyBody = { kind: 'none' } | { kind: 'text'; text: string } | { kind: 'file'; path: string; start: number; end: number };

/** What to answer, before any bytes are read: a file body is a span (inclusive) to stream. */
export interface SessionFileReply {
  status: number;
  headers: Record<string, string>;
  body: ReplyBody;
}

const ROUTES = new Set(['/api/log', '/api/context']);
const NDJSON = 'application/x-ndjson; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

/** Whether a path is one of these routes (the rest of a server's paths are not answered here). */
export function isSessionFileRoute(pathname: string): boolean {
  return ROUTES.has(pathname);
}

function plain(status: number, text: string, headers: Record<string, string> = {}): SessionFileReply {
  return { status, headers: { 'Content-Type': TEXT, 'Cache-Control': 'no-store', ...headers }, body: { kind: 'text', text } };
}

function empty(status: number, headers: Record<string, string>): SessionFileReply {
  return { status, headers: { 'Cache-Control': 'no-store', ...headers }, body: { kind: 'none' } };
}

/** A file's size, or null when it is not (or no longer) a readable file on disk. */
function sizeOf(path: string): number | null {
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

/**
 * The answer to a request for one of the routes, or null for any other path. Lookups that
 * throw (a host process that is gone) are a 503 naming the reason.
 */
export async function sessionFileReply(req: SessionFileRequest, lookups: SessionFileLookups): Promise<SessionFileReply | null> {
  const route = req.url.pathname;
  if (!isSessionFileRoute(route)) return null;
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return plain(405, `${req.method} is not allowed on ${route}; use GET or HEAD`, { Allow: 'GET, HEAD' });
  const sessionId = req.url.searchParams.get('session');
  if (!sessionId) return plain(400, `${route} needs ?session=ID`);
  try {
    return route === '/api/log' ? await logReply(req, sessionId, lookups) : await contextReply(req, sessionId, lookups);
  } catch (err) {
    return plain(503, `the host cannot answer for session "${sessionId}": ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function logReply(req: SessionFileRequest, sessionId: string, lookups: SessionFileLookups): Promise<SessionFileReply> {
  const file = (await lookups.logFileOf?.(sessionId)) ?? null;
  if (file === null) return plain(404, `no session "${sessionId}" with a log on this host`);
  // A live session's log grows: this is what is on disk now (the event stream has the rest).
  const size = sizeOf(file);
  if (size === null) return plain(404, `the log of session "${sessionId}" is no longer on disk`);
  const head = req.method === 'HEAD';
  const span = (start: number, end: number): ReplyBody =>
    head || end < start ? { kind: 'none' } : { kind: 'file', path: file, start, end };
  if (req.range === null) {
    return {
      status: 200,
      headers: { 'Content-Type': NDJSON, 'Content-Length': String(size), 'Accept-Ranges': 'bytes', 'Cache-Control': 'no-store' },
      body: span(0, size - 1),
    };
  }
  // One byte range (the page reads back long texts it left out of a big log's first read).
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.range);
  const start = range ? Number(range[1]) : NaN;
  const end = range && range[2] !== '' ? Math.min(Number(range[2]), size - 1) : size - 1;
  if (!range || !(start <= end) || start >= size)
    return plain(416, `range "${req.range}" is not one satisfiable byte range of ${size} bytes`, { 'Content-Range': `bytes */${size}` });
  return {
    status: 206,
    headers: {
      'Content-Type': NDJSON,
      'Content-Length': String(end - start + 1),
      'Content-Range': `bytes ${start}-${end}/${size}`,
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'no-store',
    },
    body: span(start, end),
  };
}

async function contextReply(req: SessionFileRequest, sessionId: string, lookups: SessionFileLookups): Promise<SessionFileReply> {
  const head = req.method === 'HEAD';
  const ctx = (await lookups.contextOf?.(sessionId)) ?? null;
  // A HEAD asks whether there is one: "no" is an answer, not an error a page's console would log.
  const none = (why: string): SessionFileReply => (head ? empty(204, {}) : plain(404, why));
  if (ctx === null) return none(`no context known for session "${sessionId}"`);
  const headers = { 'Content-Type': TEXT, 'X-Context-Name': encodeURIComponent(ctx.name), 'Cache-Control': 'no-store' };
  if (ctx.kind === 'text') {
    const length = Buffer.byteLength(ctx.text, 'utf8');
    return {
      status: 200,
      headers: { ...headers, 'Content-Length': String(length) },
      body: head ? { kind: 'none' } : { kind: 'text', text: ctx.text },
    };
  }
  const size = sizeOf(ctx.path);
  if (size === null) return none(`the context file of session "${sessionId}" (${ctx.name}) is no longer on disk`);
  return {
    status: 200,
    headers: { ...headers, 'Content-Length': String(size) },
    body: head || size === 0 ? { kind: 'none' } : { kind: 'file', path: ctx.path, start: 0, end: size - 1 },
  };
}

/** The bytes of a file span, as a Node stream (ws-server pipes it into its response). */
export function openSpan(body: Extract<ReplyBody, { kind: 'file' }>): Readable {
  return createReadStream(body.path, { start: body.start, end: body.end });
}

/** The reply as a web Response (the desktop shell's protocol handler returns it); a file body streams. */
function replyResponse(reply: SessionFileReply): Response {
  const { body } = reply;
  const init = { status: reply.status, headers: reply.headers };
  if (body.kind === 'none') return new Response(null, init);
  if (body.kind === 'text') return new Response(body.text, init);
  return new Response(Readable.toWeb(openSpan(body)) as ReadableStream<Uint8Array>, init);
}

/** `sessionFileReply` as a web Response, or null for any other path. */
export async function sessionFileResponse(req: SessionFileRequest, lookups: SessionFileLookups): Promise<Response | null> {
  const reply = await sessionFileReply(req, lookups);
  return reply === null ? null : replyResponse(reply);
}
