// Where spans go: an OTLP/HTTP collector (the official exporter, JSON encoding) or an
// OTLP/JSON file (the official serializer: one ExportTraceServiceRequest).
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** A collector URL or header that cannot be used; the message names the option. */
export class OtlpTargetError extends Error {
  override name = 'OtlpTargetError';
}

const TRACES_PATH = '/v1/traces';
/** Spans per request: collectors limit request sizes (4 MiB by default in the Collector's receiver). */
const SPANS_PER_REQUEST = 256;

/**
 * The traces URL of a collector: a base URL gets `/v1/traces` appended (as
 * OTEL_EXPORTER_OTLP_ENDPOINT does), a URL already ending in it is used as it is.
 */
export function tracesUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new OtlpTargetError(`--endpoint ${JSON.stringify(endpoint)} is not a URL (expected e.g. http://localhost:4318)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OtlpTargetError(`--endpoint ${endpoint}: OTLP/HTTP needs an http: or https: URL`);
  if (!url.pathname.endsWith(TRACES_PATH)) url.pathname = `${url.pathname.replace(/\/+$/, '')}${TRACES_PATH}`;
  return url.toString();
}

/** `K=V` pairs (repeatable `--header`) as a header map. */
export function parseHeaders(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new OtlpTargetError(`--header ${JSON.stringify(p)}: expected NAME=VALUE`);
    out[p.slice(0, eq).trim()] = p.slice(eq + 1).trim();
  }
  return out;
}

export interface CollectorOptions {
  endpoint: string;
  headers: Record<string, string>;
  /** Per request, retries included. */
  timeoutMs?: number;
}

export function collectorExporter(o: CollectorOptions): SpanExporter {
  return new OTLPTraceExporter({ url: tracesUrl(o.endpoint), headers: o.headers, timeoutMillis: o.timeoutMs ?? 10_000 });
}

function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<void> {
  return new Promise((resolve, reject) => {
    exporter.export(spans, (r) => {
      if (r.code === ExportResultCode.SUCCESS) resolve();
      else reject(r.error ?? new Error('the collector did not accept the spans'));
    });
  });
}

/** Sends the spans in requests of bounded size, one after another; the first failure stops it. */
export async function sendSpans(exporter: SpanExporter, spans: readonly ReadableSpan[]): Promise<void> {
  for (let i = 0; i < spans.length; i += SPANS_PER_REQUEST) await exportOnce(exporter, spans.slice(i, i + SPANS_PER_REQUEST));
}

/** The OTLP/JSON encoding of the spans as one ExportTraceServiceRequest. */
export function otlpJson(spans: ReadableSpan[]): string {
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  return bytes === undefined ? '{"resourceSpans":[]}' : new TextDecoder().decode(bytes);
}
