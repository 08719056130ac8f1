// `serve --otlp-endpoint`: the events of live sessions, as the host receives them, folded
// into the same spans as `export-otlp` and sent to a collector in batches as spans end (a
// run's agent span when its run.end arrives).
import { ExportResultCode } from '@opentelemetry/core';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import { OtlpSpanFolder } from './otlp.ts';
import { type CollectorOptions, collectorExporter, tracesUrl } from './otlp-transport.ts';

export interface OtlpLiveOptions extends CollectorOptions {
  content: boolean;
  /** Longest a finished span waits for its batch to go out. Default 1000 ms. */
  delayMs?: number;
  /** Where a refused or unreachable collector is reported (once until a send succeeds again). */
  warn: (message: string) => void;
}

/** Reports the first failure of a streak, so a collector that is down is said once, not per batch. */
function reporting(inner: SpanExporter, url: string, warn: (m: string) => void): SpanExporter {
  let failing = false;
  return {
    export: (spans, done) =>
      inner.export(spans, (r) => {
        if (r.code !== ExportResultCode.SUCCESS && !failing)
          warn(`rlm-studio: OTLP collector ${url} did not take ${spans.length} span(s): ${r.error?.message ?? 'failed'}\n`);
        failing = r.code !== ExportResultCode.SUCCESS;
        done(r);
      }),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

export class OtlpLiveExporter {
  private readonly folders = new Map<string, OtlpSpanFolder>();
  private readonly processor: BatchSpanProcessor;
  private readonly content: boolean;

  constructor(o: OtlpLiveOptions) {
    this.content = o.content;
    const exporter = reporting(collectorExporter(o), tracesUrl(o.endpoint), o.warn);
    // A big session ends many spans at once (a run's blocks and calls); the default queue of 2048 would drop some.
    this.processor = new BatchSpanProcessor({
      exporter,
      scheduledDelayMillis: o.delayMs ?? 1000,
      maxQueueSize: 65_536,
      maxExportBatchSize: 256,
    });
  }

  /** Events of one live session, in order, as they arrive. */
  push(sessionId: string, events: readonly TrajectoryEvent[]): void {
    let folder = this.folders.get(sessionId);
    if (!folder) {
      folder = new OtlpSpanFolder(sessionId, (s: ReadableSpan) => this.processor.onEnd(s), { content: this.content });
      this.folders.set(sessionId, folder);
    }
    for (const e of events) folder.push(e);
  }

  /** Sends what has ended so far. A refused batch has been reported through `warn`, not thrown. */
  async flush(): Promise<void> {
    await this.processor.forceFlush().catch(() => undefined);
  }

  /** Ends the spans of sessions still running (marked unfinished), sends everything, stops. */
  async close(): Promise<void> {
    for (const f of this.folders.values()) f.flush();
    this.folders.clear();
    await this.processor.shutdown().catch(() => undefined);
  }
}
