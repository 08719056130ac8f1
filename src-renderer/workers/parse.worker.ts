// Parses a dropped log, or a host session's log fetched from /api/log, off the UI thread;
// and reads back the long texts a parse left out, when the page shows them.
import { parseBlob, parseUrl, prepareReading, readTexts } from './parse-core.ts';
import type { ParseIn, ParseOut, TextsIn } from '../lib/parse-messages.ts';

const post = (m: ParseOut, transfer: Transferable[] = []): void =>
  (self as unknown as { postMessage(m: ParseOut, transfer: Transferable[]): void }).postMessage(m, transfer);

self.addEventListener('message', (ev: MessageEvent<ParseIn | TextsIn>) => {
  const m = ev.data;
  if ('texts' in m) {
    readTexts(m.source, m.cuts).then(
      (r) => post({ kind: 'texts', id: m.texts, ...r }),
      (err: unknown) =>
        post({ kind: 'texts', id: m.texts, texts: m.cuts.map(() => null), problems: [err instanceof Error ? err.message : String(err)] }),
    );
    return;
  }
  void ('url' in m ? parseUrl(m, post) : parseBlob(m, post));
});

// A worker is started before its file is chosen: its read buffers are ready by then.
prepareReading();
