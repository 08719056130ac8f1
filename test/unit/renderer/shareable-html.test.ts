// Export ▸ Shareable HTML's fill step and the bundle page's read of it, round trip: the log and
// its name come back byte for byte, whatever they hold.
import { Blob as NodeBlob, File as NodeFile } from 'node:buffer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOG_ELEMENT } from '../../../src-shared/bundle-template.ts';
import { base64ToBytes, readEmbeddedLog } from '../../../src-renderer/bundle/embedded-log.ts';
import { bytesToBase64, fillShareableHtml } from '../../../src-renderer/lib/shareable-html.ts';
import { hostileNativeText } from './hostile.ts';

const TEMPLATE = `<!doctype html><html><head><title>t</title></head><body><div id="root"></div>${LOG_ELEMENT}</body></html>`;

// jsdom's Blob has no stream(), which every current browser's has (and the code uses).
beforeAll(() => {
  vi.stubGlobal('Blob', NodeBlob);
  vi.stubGlobal('File', NodeFile);
});
afterAll(() => vi.unstubAllGlobals());

describe('shareable HTML', () => {
  it('base64 both ways (here through atob/btoa: Node has no Uint8Array.fromBase64 or toBase64)', () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) & 255);
    const b64 = bytesToBase64(bytes);
    expect(b64).toBe(Buffer.from(bytes).toString('base64'));
    expect([...base64ToBytes(b64)]).toEqual([...bytes]);
  });

  it('fills the template with a hostile log that reads back unchanged', async () => {
    const log = `${hostileNativeText()}{"text":"</script><script>window.__pwned=1</script> <!-- ünï"}\n`;
    const name = 'hostile"><script>.rlm.jsonl';
    const html = await (await fillShareableHtml(TEMPLATE, name, log)).text();
    expect(html.includes('__pwned')).toBe(false);
    expect(html.match(/<\/script/g)).toHaveLength(1);
    const doc = new DOMParser().parseFromString(html, 'text/html');
    const file = await readEmbeddedLog(doc);
    expect(file?.name).toBe(name);
    expect(await file?.text()).toBe(log);
    // Read once: the base64 text leaves the DOM.
    expect(doc.getElementById('rlm-log')).toBeNull();
  });

  it('finds no log in the bare template', async () => {
    expect(await readEmbeddedLog(new DOMParser().parseFromString(TEMPLATE, 'text/html'))).toBeNull();
  });
});
