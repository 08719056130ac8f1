// Web mode: one HTTP server that serves the built UI and carries the protocol over a
// WebSocket at /ws. Only clients presenting the per-start token (from the printed URL) may
// open the socket, and a browser's Origin must be this server itself: another web page the
// user visits, or another local user, cannot drive the host.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { HostEndpoint } from '../host/endpoint.ts';
import { MAX_MESSAGE_BYTES, MAX_MESSAGE_DEPTH, nestsDeeperThan } from './message-guard.ts';
import { isSessionFileRoute, openSpan, type SessionFileLookups, type SessionFileReply, sessionFileReply } from './session-files.ts';
import { receiveUpload, UPLOAD_ROUTE } from './uploads.ts';

/**
 * `logFileOf` enables GET /api/log?session=ID&token=T: the raw bytes of a session's log
 * file, so a page can decode a large log in a Web Worker with the shared codecs instead of
 * receiving it event by event. `contextOf` enables GET /api/context?session=ID&token=T: the
 * context a session ran on, as its recipe names it (never a path from the request), for the
 * app's coverage map. Both are answered by session-files.ts, as in the desktop app.
 */
export interface WebServerOptions extends SessionFileLookups {
  endpoint: HostEndpoint;
  /** 0 picks a free port. */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The built UI (index.html and assets); when absent a page says the UI is not built. */
  staticDir?: string | null;
  /** Default: 32 random bytes, base64url. */
  token?: string;
  /** Largest accepted message; default MAX_MESSAGE_BYTES (big texts come by POST /api/upload). */
  maxPayloadBytes?: number;
  /** Where POST /api/upload stores what the page uploads; without it the route answers 404. */
  uploadDir?: string | null;
  /**
   * Every this many ms each socket is pinged; one that has not answered the previous ping
   * is dropped (a laptop that slept, a tunnel that died), so its subscriptions and buffers go
   * too. Browsers answer pings by themselves. Default 30000; 0 disables.
   */
  heartbeatMs?: number;
}

export interface WebServer {
  /** The address to open, token included. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Compares secrets in time independent of where they differ (and of their lengths). */
export function tokenMatches(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * A browser always sends Origin on a WebSocket handshake; other clients (CLI, tests) may
 * not, and without a token they get nowhere anyway. A browser's Origin must name this very
 * server as the browser reached it (its Host header); when bound to loopback that name must
 * be a loopback one too, which also defeats DNS rebinding.
 */
export function originAllowed(origin: string | undefined, hostHeader: string | undefined, boundHost: string): boolean {
  if (origin === undefined) return true;
  if (!hostHeader) return false;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (o.protocol !== 'http:' && o.protocol !== 'https:') return false;
  if (o.host !== hostHeader.toLowerCase()) return false;
  return !isLoopback(boundHost) || isLoopback(o.hostname);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>RLM Studio</title>
<body style="font-family: system-ui; max-width: 40em; margin: 4em auto">
<h1>RLM Studio</h1><p>The host is running, but the UI isn't built. Build it (<code>npx vite build</code> in the project) and reload.</p>
<p>The protocol is available at <code>/ws?token=…</code> with the token from the printed URL.</p></body>`;

function securityHeaders(res: ServerResponse): void {
  // The token is in the page URL: never leak it in a Referer.
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  );
}

function serveStatic(staticDir: string | null, req: IncomingMessage, res: ServerResponse): void {
  securityHeaders(res);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  if (staticDir === null || !existsSync(join(staticDir, 'index.html'))) {
    res.writeHead(pathname === '/' ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' }).end(NOT_BUILT);
    return;
  }
  const root = resolve(staticDir);
  let file = resolve(root, `.${normalize(pathname)}`);
  if (file !== root && !file.startsWith(root + sep)) {
    res.writeHead(403).end();
    return;
  }
  if (!existsSync(file) || statSync(file).isDirectory()) {
    // A single-page app: unknown paths get index.html; unknown assets get 404.
    if (extname(pathname) !== '') {
      res.writeHead(404).end();
      return;
    }
    file = join(root, 'index.html');
  }
  res.writeHead(200, {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': file.endsWith('index.html') ? 'no-cache' : 'max-age=3600',
  });
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
}

function writeReply(reply: SessionFileReply | null, res: ServerResponse): void {
  if (reply === null) return void res.writeHead(404).end();
  res.writeHead(reply.status, reply.headers);
  const { body } = reply;
  if (body.kind === 'none') return void res.end();
  if (body.kind === 'text') return void res.end(body.text);
  openSpan(body)
    .on('error', () => res.destroy())
    .pipe(res);
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${text.length}\r\n\r\n${text}`,
  );
}

export async function startWebServer(o: WebServerOptions): Promise<WebServer> {
  const boundHost = o.host ?? '127.0.0.1';
  const token = o.token ?? randomBytes(32).toString('base64url');
  const staticDir = o.staticDir ?? null;
  // A larger message is refused by `ws` while its frames arrive (close 1009), never held whole.
  const wss = new WebSocketServer({ noServer: true, maxPayload: o.maxPayloadBytes ?? MAX_MESSAGE_BYTES });
  const uploadDir = o.uploadDir ?? null;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (isSessionFileRoute(url.pathname)) return serveSessionFile(url, req, res);
    if (url.pathname === UPLOAD_ROUTE && uploadDir !== null) {
      if (allowed(url, req, res)) void receiveUpload(uploadDir, url, req, res);
      return;
    }
    serveStatic(staticDir, req, res);
  });

  /** The token and the Origin, as for the socket; false when the request was refused. */
  const allowed = (url: URL, req: IncomingMessage, res: ServerResponse): boolean => {
    securityHeaders(res);
    res.setHeader('Cache-Control', 'no-store');
    if (!tokenMatches(url.searchParams.get('token'), token)) res.writeHead(401).end('Unauthorized');
    else if (!originAllowed(req.headers.origin, req.headers.host, boundHost)) res.writeHead(403).end('Forbidden');
    else return true;
    return false;
  };

  /** /api/log and /api/context: the shared answer (session-files.ts), once the token and Origin pass. */
  const serveSessionFile = (url: URL, req: IncomingMessage, res: ServerResponse): void => {
    if (!allowed(url, req, res)) return;
    const request = { url, method: req.method ?? 'GET', range: req.headers.range ?? null };
    void sessionFileReply(request, o).then(
      (reply) => writeReply(reply, res),
      () => res.writeHead(500).end(),
    );
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/ws') return refuse(socket, 404, 'Not Found');
    if (!tokenMatches(url.searchParams.get('token'), token)) return refuse(socket, 401, 'Unauthorized');
    if (!originAllowed(req.headers.origin, req.headers.host, boundHost)) return refuse(socket, 403, 'Forbidden');
    wss.handleUpgrade(req, socket, head, (ws) => attach(ws));
  });

  const alive = new WeakMap<WebSocket, boolean>();
  const heartbeatMs = o.heartbeatMs ?? 30_000;
  const heartbeat =
    heartbeatMs > 0
      ? setInterval(() => {
          for (const ws of wss.clients) {
            if (alive.get(ws) === false) {
              ws.terminate();
              continue;
            }
            alive.set(ws, false);
            ws.ping();
          }
        }, heartbeatMs)
      : null;
  heartbeat?.unref();

  const attach = (ws: WebSocket): void => {
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    const conn = o.endpoint.connect(
      (m) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
      },
      { buffered: () => ws.bufferedAmount },
    );
    ws.on('message', (data, isBinary) => {
      if (isBinary) return conn.receive(null);
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      // Nesting is what makes JSON.parse take gigabytes and seconds; refused before any object is made.
      if (nestsDeeperThan(bytes, MAX_MESSAGE_DEPTH))
        return ws.close(1008, `refused unread: nested deeper than ${MAX_MESSAGE_DEPTH} levels`);
      let raw: unknown;
      try {
        raw = JSON.parse(bytes.toString());
      } catch {
        raw = null;
      }
      conn.receive(raw);
    });
    ws.on('close', () => conn.close());
    // A message over the size limit: `ws` has sent close 1009 (message too big); let that reach the client.
    ws.on('error', () => {
      if (ws.readyState !== ws.CLOSING) ws.terminate();
    });
  };

  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(o.port, boundHost, () => res());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = boundHost === '0.0.0.0' || boundHost === '::' ? '127.0.0.1' : boundHost.includes(':') ? `[${boundHost}]` : boundHost;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      if (heartbeat) clearInterval(heartbeat);
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
