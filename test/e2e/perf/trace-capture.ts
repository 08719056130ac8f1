// Records a devtools timeline trace of a page while `during` runs (CDP tracing), for the perf
// tools that take one open of a log apart (trace.ts, timeline.ts).
import type { Page } from 'playwright-core';

export interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  ts: number;
  dur?: number;
  tid: number;
  pid: number;
  args?: { name?: string; data?: { type?: string; functionName?: string; url?: string; frame?: string } };
}

const CATEGORIES = 'devtools.timeline,disabled-by-default-devtools.timeline,v8,blink.user_timing';

export async function traceWhile(page: Page, during: () => Promise<void>): Promise<TraceEvent[]> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...(d.value as unknown as TraceEvent[])));
  const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  await cdp.send('Tracing.start', { categories: CATEGORIES, transferMode: 'ReportEvents' });
  try {
    await during();
  } finally {
    await cdp.send('Tracing.end');
    await done;
    await cdp.detach();
  }
  return events;
}
