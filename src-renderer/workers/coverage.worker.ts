// The context coverage map off the main thread: reads the context file the user picked,
// indexes it and matches the session's texts as they arrive in batches (see
// app/coverage-services.ts), then sums the figures. Indexing 100 MB takes seconds.
import { AnchorIndex } from '../../src-shared/analysis/anchor-index.ts';
import { largestUnseen, sourceSpans, summarizeCoverage, type CoverageSpan } from '../../src-shared/analysis/coverage.ts';
import type { CoverageIn, CoverageOut } from '../lib/coverage-messages.ts';

const LARGEST = 20;
const PREVIEW_CHARS = 160;

let index: Promise<AnchorIndex> | null = null;
let spans: Promise<CoverageSpan[]> = Promise.resolve([]);

function post(m: CoverageOut): void {
  (self as unknown as { postMessage(m: CoverageOut): void }).postMessage(m);
}

self.onmessage = (ev: MessageEvent<CoverageIn>) => {
  const m = ev.data;
  if (m.kind === 'start') {
    index = m.context.text().then((text) => new AnchorIndex(text));
    spans = Promise.resolve([]);
    return;
  }
  const ready = index;
  if (!ready) return post({ kind: 'error', message: 'no context file was given' });
  if (m.kind === 'sources') {
    const list = m.list;
    spans = Promise.all([ready, spans]).then(([ix, acc]) => {
      for (const s of list) for (const sp of sourceSpans(ix, s)) acc.push(sp);
      return acc;
    });
    return;
  }
  Promise.all([ready, spans]).then(
    ([ix, all]) => {
      const report = summarizeCoverage(ix.context.length, m.runs, all);
      const gaps = largestUnseen(report.unseen, ix.context, LARGEST).map((u) => ({
        ...u,
        preview: ix.context.slice(u.start, Math.min(u.end, u.start + PREVIEW_CHARS)),
      }));
      post({ kind: 'report', report, largestUnseen: gaps });
    },
    (err: unknown) => post({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
  );
};
