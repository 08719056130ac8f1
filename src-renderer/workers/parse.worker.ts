// Parses a dropped log, or a host session's log fetched from /api/log, off the UI thread.
import { parseBlob, parseUrl, type ParseIn, type ParseOut } from './parse-core.ts';

const post = (m: ParseOut): void => (self as unknown as { postMessage(m: ParseOut): void }).postMessage(m);

self.addEventListener('message', (ev: MessageEvent<ParseIn>) => {
  const m = ev.data;
  void ('url' in m ? parseUrl(m.url, post) : parseBlob(m.file, post));
});
