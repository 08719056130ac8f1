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
  id?: string;
  args?: { name?: string; data?: TraceData };
}

interface TraceData {
  type?: string;
  functionName?: string;
  url?: string;
  frame?: string;
  /** A `ProfileChunk`'s samples (category v8.cpu_profiler). */
  cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
  timeDeltas?: number[];
}

interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

const CATEGORIES = 'devtools.timeline,disabled-by-default-devtools.timeline,v8,blink.user_timing';
/** V8's sampling profiler, per thread: the only way to see inside a worker from one trace. */
const CPU_CATEGORY = 'disabled-by-default-v8.cpu_profiler';

export async function traceWhile(page: Page, during: () => Promise<void>, opts: { cpu?: boolean } = {}): Promise<TraceEvent[]> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...(d.value as unknown as TraceEvent[])));
  const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  await cdp.send('Tracing.start', { categories: opts.cpu ? `${CATEGORIES},${CPU_CATEGORY}` : CATEGORIES, transferMode: 'ReportEvents' });
  try {
    await during();
  } finally {
    await cdp.send('Tracing.end');
    await done;
    await cdp.detach();
  }
  return events;
}

/** Self and inclusive time per function (ms) of one thread's CPU profile in a trace taken with `cpu`. */
export interface ThreadProfile {
  thread: string;
  sampledMs: number;
  self: Map<string, number>;
  /** Time with the function anywhere on the stack (once per sample, however deep it recurses). */
  total: Map<string, number>;
}

/** The sampled CPU profiles in a trace, one per thread, named as the trace names threads. */
export function cpuProfiles(events: readonly TraceEvent[]): ThreadProfile[] {
  const names = new Map<string, string>();
  for (const e of events) if (e.name === 'thread_name' && e.args?.name) names.set(`${e.pid}:${e.tid}`, e.args.name);
  const byId = new Map<string, { thread: string; nodes: Map<number, ProfileNode>; samples: number[]; deltas: number[] }>();
  for (const e of events) {
    if (e.id === undefined) continue;
    if (e.name === 'Profile')
      byId.set(e.id, { thread: names.get(`${e.pid}:${e.tid}`) ?? `${e.pid}:${e.tid}`, nodes: new Map(), samples: [], deltas: [] });
    const p = e.name === 'ProfileChunk' ? byId.get(e.id) : undefined;
    const d = e.args?.data;
    if (!p || !d) continue;
    for (const n of d.cpuProfile?.nodes ?? []) p.nodes.set(n.id, n);
    p.samples.push(...(d.cpuProfile?.samples ?? []));
    p.deltas.push(...(d.timeDeltas ?? []));
  }
  return [...byId.values()].map((p) => {
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    let sampledMs = 0;
    // A sample's time is the gap to the next one.
    for (let i = 0; i < p.samples.length; i++) {
      const ms = (p.deltas[i + 1] ?? 0) / 1000;
      sampledMs += ms;
      const n = p.nodes.get(p.samples[i] as number);
      if (!n) continue;
      const key = frameName(n);
      self.set(key, (self.get(key) ?? 0) + ms);
      const seen = new Set<string>();
      for (let at: ProfileNode | undefined = n; at; at = at.parent === undefined ? undefined : p.nodes.get(at.parent)) {
        const k = frameName(at);
        if (seen.has(k)) continue;
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + ms);
      }
    }
    return { thread: p.thread, sampledMs, self, total };
  });
}

function frameName(n: ProfileNode): string {
  const f = n.callFrame;
  return f.url ? `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}:${f.lineNumber + 1}` : f.functionName;
}
