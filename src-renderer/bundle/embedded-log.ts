// Reads the log a bundle carries: base64 of its gzip in a <script> data block (see
// src-shared/bundle-template.ts), decompressed by the browser into a File that opens like
// a dropped one.
import { LOG_ELEMENT_ID } from '../../src-shared/bundle-template.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type FromBase64 = (s: string) => Uint8Array<ArrayBuffer>;

export function base64ToBytes(s: string): Uint8Array<ArrayBuffer> {
  const native = (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64;
  if (native) return native(s);
  const out = new Uint8Array((s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0));
  // atob in pieces: one binary string of a whole big log would double its memory.
  const PIECE = 1 << 20;
  let at = 0;
  for (let i = 0; i < s.length; i += PIECE) {
    const bin = atob(s.slice(i, i + PIECE));
    for (let k = 0; k < bin.length; k++) out[at++] = bin.charCodeAt(k);
  }
  return out;
}

/** The embedded log as a file, or null when the page carries none (the bare template). */
export async function readEmbeddedLog(doc: Document): Promise<File | null> {
  const el = doc.getElementById(LOG_ELEMENT_ID);
  const b64 = el?.textContent?.trim() ?? '';
  if (!el || b64 === '' || b64.length % 4 !== 0 || !BASE64.test(b64)) return null;
  const nameB64 = el.getAttribute('data-name') ?? '';
  const name = nameB64 !== '' && BASE64.test(nameB64) ? new TextDecoder().decode(base64ToBytes(nameB64)) : 'session.rlm.jsonl';
  // The base64 text is not needed once decoded; a big one should not stay in the DOM.
  el.remove();
  const gz = new Blob([base64ToBytes(b64)]);
  const plain = await new Response(gz.stream().pipeThrough(new DecompressionStream('gzip'))).blob();
  return new File([plain], name, { type: 'application/x-ndjson' });
}
