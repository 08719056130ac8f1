// Parses a dropped log off the UI thread.
import { parseBlob, type ParseIn, type ParseOut } from './parse-core.ts';

const post = (m: ParseOut): void => (self as unknown as { postMessage(m: ParseOut): void }).postMessage(m);

self.addEventListener('message', (ev: MessageEvent<ParseIn>) => {
  void parseBlob(ev.data.file, post);
});
