// A page that does the least any viewer of a whole JSONL log must do: read the file in a
// worker, decode it, `JSON.parse` every line, and paint one line of text. Nothing is kept,
// converted, posted back or drawn. `side-by-side.ts --floor` times it beside ours and the
// reference's viewer, so a goal such as "fully loaded within 0.5 × the reference" can be
// checked against what merely parsing the log costs on the same machine, in the same minute.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const WORKER = `onmessage = async (e) => {
  const text = new TextDecoder().decode(await e.data.arrayBuffer());
  let lines = 0;
  for (let i = 0; i < text.length; ) {
    let j = text.indexOf('\\n', i);
    if (j < 0) j = text.length;
    if (j > i) {
      JSON.parse(text.slice(i, j));
      lines++;
    }
    i = j + 1;
  }
  postMessage(lines);
};`;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>parse floor</title></head><body>
<input type="file"><div id="parsed"></div>
<script>
const worker = new Worker(URL.createObjectURL(new Blob([${JSON.stringify(WORKER)}], { type: 'text/javascript' })));
worker.onmessage = (m) => { document.getElementById('parsed').textContent = m.data + ' lines parsed'; };
document.querySelector('input').addEventListener('change', (e) => worker.postMessage(e.target.files[0]));
</script></body></html>`;

/** What side-by-side's probe looks for: the line of text painted once every line is parsed. */
export const FLOOR_SETUP = `window.__firstSel = null; window.__isFull = () => (document.getElementById('parsed')?.textContent ?? '') !== '';`;

export async function startParseFloor(): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(PAGE);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
