// The frames between the CPython REPL's host side and runtime.py's `_PipeHost`: two big-endian
// u32 (header length, payload length), a JSON header, a payload. The sandboxed side is not
// trusted: a frame it sends is only ever read as data, and one too large ends the session.
import type { Readable, Writable } from 'node:stream';

export interface Frame {
  header: Record<string, unknown>;
  body: Buffer;
}

/** A header this large from the sandbox is not a header: the session is ended. */
const MAX_HEADER = 1024 * 1024;
const U32 = 0xffffffff;

export function writeFrame(out: Writable, header: Record<string, unknown>, body: Buffer = Buffer.alloc(0)): void {
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  if (body.length > U32) throw new Error(`a value of ${body.length} bytes is too large for the CPython REPL (at most 4 GiB)`);
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32BE(head.length, 0);
  prefix.writeUInt32BE(body.length, 4);
  out.write(Buffer.concat([prefix, head]));
  if (body.length > 0) out.write(body);
}

/** Calls `onFrame` for each whole frame read from `input`; `onBad` once if a frame cannot be read. */
export function readFrames(input: Readable, onFrame: (f: Frame) => void, onBad: (why: string) => void): void {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let need: { head: number; body: number } | null = null;
  let bad = false;
  const take = (n: number): Buffer => {
    const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    chunks = rest.length > 0 ? [rest] : [];
    buffered = rest.length;
    return out;
  };
  input.on('data', (chunk: Buffer) => {
    if (bad) return;
    chunks.push(chunk);
    buffered += chunk.length;
    for (;;) {
      if (!need) {
        if (buffered < 8) return;
        const prefix = take(8);
        need = { head: prefix.readUInt32BE(0), body: prefix.readUInt32BE(4) };
        if (need.head > MAX_HEADER) {
          bad = true;
          onBad(`a frame header of ${need.head} bytes`);
          return;
        }
      }
      if (buffered < need.head + need.body) return;
      const head = take(need.head).toString('utf8');
      const body = Buffer.from(take(need.body));
      need = null;
      let header: unknown;
      try {
        header = JSON.parse(head);
      } catch {
        header = null;
      }
      if (typeof header !== 'object' || header === null || Array.isArray(header)) {
        bad = true;
        onBad('a frame whose header is not a JSON object');
        return;
      }
      onFrame({ header: header as Record<string, unknown>, body });
    }
  });
}
