// A tiny OTLP/HTTP receiver for tests: records every request posted to it (the JSON
// encoding the exporter uses) and answers as a collector does, or with a chosen status.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpJsonSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number; message?: string };
  events?: { name: string; timeUnixNano: string }[];
}

export interface OtlpJsonRequest {
  resourceSpans: {
    resource: { attributes: { key: string; value: Record<string, unknown> }[] };
    scopeSpans: { scope: { name: string }; spans: OtlpJsonSpan[] }[];
  }[];
}

interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: OtlpJsonRequest;
}

export interface OtlpReceiver {
  url: string;
  requests: ReceivedRequest[];
  spans(): OtlpJsonSpan[];
  /** The status code the next requests get (200 by default). */
  respondWith(status: number): void;
  close(): Promise<void>;
}

export function spansOf(body: OtlpJsonRequest): OtlpJsonSpan[] {
  return body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: JSON.parse(text) as OtlpJsonRequest });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{}' : '{"code":3,"message":"rejected by the test"}');
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((r) => spansOf(r.body)),
    respondWith: (s) => void (status = s),
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}
