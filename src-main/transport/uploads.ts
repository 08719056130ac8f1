// POST /api/upload?name=N&token=T: a large text the page hands to the host (a context picked in
// a form, a log opened through the host) streamed into a file of its own, instead of one
// WebSocket message the host would have to hold and parse whole (message-guard.ts). The reply
// names the file; the page then uses the commands that take a host path (`session.open`, a
// `file` context), so the protocol is unchanged and the file stays for re-execution.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const UPLOAD_ROUTE = '/api/upload';

/** Far above any context a model can read (2^24 tokens are ~64 MB); a limit on the disk a client may fill. */
const MAX_UPLOAD_BYTES = 2 * 1024 * 1024 * 1024;

class TooLarge extends Error {}

/** The file's name as the page gave it, reduced to safe characters (never a path). */
function safeName(name: string | null): string {
  const base = (name ?? '').split(/[\\/]/).at(-1) ?? '';
  return (
    base
      .replace(/[^\w.-]+/g, '_')
      .replace(/^\.+/, '')
      .slice(0, 200) || 'upload'
  );
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(body));
}

/** Streams the request body into `<dir>/<random>/<name>`; replies `{path}`, or `{error}` with 405, 413 or 500. */
export async function receiveUpload(dir: string, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST');
    return reply(res, 405, { error: `${req.method ?? 'GET'} is not allowed on ${UPLOAD_ROUTE}; use POST` });
  }
  const folder = join(dir, randomBytes(9).toString('base64url'));
  const path = join(folder, safeName(url.searchParams.get('name')));
  let size = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > MAX_UPLOAD_BYTES ? new TooLarge() : null, chunk);
    },
  });
  try {
    await mkdir(folder, { recursive: true });
    await pipeline(req, limit, createWriteStream(path, { flags: 'wx' }));
    reply(res, 200, { path });
  } catch (err) {
    await rm(folder, { recursive: true, force: true });
    if (err instanceof TooLarge) reply(res, 413, { error: `an upload may be at most ${MAX_UPLOAD_BYTES / 1024 ** 3} GiB` });
    else if (!res.headersSent) reply(res, 500, { error: `the host could not store the upload: ${(err as Error).message}` });
  }
}
