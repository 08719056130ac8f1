// Export ▸ Shareable HTML in the app: the template built beside the app
// (dist/renderer/bundle-template.html) filled with a session's native log, as
// `rlm-studio bundle` does on the command line. Not imported by the bundle's own page: its
// script must not hold the template's marks.
import { assertBase64, splitTemplate } from '../../src-shared/bundle-template.ts';

type ToBase64 = (this: Uint8Array) => string;

export function bytesToBase64(bytes: Uint8Array): string {
  const native = (Uint8Array.prototype as unknown as { toBase64?: ToBase64 }).toBase64;
  if (native) return native.call(bytes);
  const parts: string[] = [];
  // btoa in pieces of a multiple of 3 bytes, so the pieces join into one base64 text.
  const PIECE = 3 * 8192;
  for (let i = 0; i < bytes.length; i += PIECE) parts.push(btoa(String.fromCharCode(...bytes.subarray(i, i + PIECE))));
  return parts.join('');
}

async function gzip(data: Blob): Promise<Uint8Array> {
  return new Uint8Array(await new Response(data.stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer());
}

/** The template with this log in it, as an HTML file. */
export async function fillShareableHtml(template: string, name: string, nativeLog: string): Promise<Blob> {
  const { head, middle, tail } = splitTemplate(template);
  const nameB64 = bytesToBase64(new TextEncoder().encode(name));
  const logB64 = bytesToBase64(await gzip(new Blob([nativeLog])));
  assertBase64(nameB64, 'the name');
  assertBase64(logB64, 'the log');
  return new Blob([head, nameB64, middle, logB64, tail], { type: 'text/html' });
}

/** Reads the template from where the app was loaded from (the web server or the desktop app's scheme). */
export function shareableHtmlFrom(base: string): (name: string, nativeLog: string) => Promise<Blob> {
  return async (name, nativeLog) => {
    const res = await fetch(new URL('bundle-template.html', base));
    if (!res.ok) throw new Error(`the viewer template is not there (HTTP ${res.status}); build the UI again (npm run build:renderer)`);
    return fillShareableHtml(await res.text(), name, nativeLog);
  };
}
