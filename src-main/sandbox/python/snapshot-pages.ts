// A Pyodide memory snapshot without its zero pages. Pyodide restores a snapshot by copying the
// whole image (header, then the interpreter's wasm memory) into a fresh memory, which touches
// every page of it; about half of those pages are zero (15.6 of 30 MB here), and a fresh wasm
// memory is zero already, so the copy made each session pay for pages it never needed. The
// image is packed once per process (the header, then the nonzero pages); each interpreter gets
// the packed bytes (~15 MB, dropped once it has loaded) and copies only those pages into its
// memory, so the zero pages stay untouched and cost nothing (isolate-side.ts `restorePages`).
// No isolated-vm here: a plain function of bytes, tested on its own.

/** Restore granularity: the kernel's page, the unit a write makes resident. */
export const SNAPSHOT_PAGE = 4096;

/** Pyodide's snapshot header (pyodide.asm.mjs `API.restoreSnapshot`): a magic number, then the header's length. */
const HEADER_LENGTH_OFFSET = 4;

export interface PackedSnapshot {
  /** Length of the whole image: Pyodide sizes the interpreter's first memory by it. */
  length: number;
  /** Bytes before the wasm memory's first byte (Pyodide's header and its JSON). */
  header: number;
  /** Pairs of [start, end) offsets in the wasm memory of its nonzero runs of pages. */
  runs: Uint32Array;
  /** The header's bytes, then each run's bytes in turn. */
  data: ArrayBuffer;
}

/** The image's header and nonzero pages; throws on an image too short for its own header. */
export function packSnapshot(image: Uint8Array): PackedSnapshot {
  if (image.byteLength < HEADER_LENGTH_OFFSET + 4) throw new Error('the Pyodide snapshot is shorter than its header');
  const header = new DataView(image.buffer, image.byteOffset, image.byteLength).getUint32(HEADER_LENGTH_OFFSET, true);
  if (header > image.byteLength) throw new Error(`the Pyodide snapshot's header (${header} bytes) is longer than the snapshot`);
  const memory = Buffer.from(image.buffer, image.byteOffset + header, image.byteLength - header);
  const zero = Buffer.alloc(SNAPSHOT_PAGE);
  const runs: number[] = [];
  let total = header;
  for (let start = 0; start < memory.length; start += SNAPSHOT_PAGE) {
    const end = Math.min(start + SNAPSHOT_PAGE, memory.length);
    if (memory.compare(zero, 0, end - start, start, end) === 0) continue;
    if (runs.length > 0 && runs[runs.length - 1] === start) runs[runs.length - 1] = end;
    else runs.push(start, end);
    total += end - start;
  }
  const data = new Uint8Array(total);
  data.set(image.subarray(0, header), 0);
  let at = header;
  for (let i = 0; i < runs.length; i += 2) {
    data.set(memory.subarray(runs[i], runs[i + 1]), at);
    at += runs[i + 1]! - runs[i]!;
  }
  return { length: image.byteLength, header, runs: Uint32Array.from(runs), data: data.buffer };
}

/** The whole image again (tests; the isolate restores pages straight into its memory). */
export function unpackSnapshot(packed: PackedSnapshot): Uint8Array {
  const image = new Uint8Array(packed.length);
  const data = new Uint8Array(packed.data);
  image.set(data.subarray(0, packed.header), 0);
  let at = packed.header;
  for (let i = 0; i < packed.runs.length; i += 2) {
    const start = packed.runs[i]!;
    const end = packed.runs[i + 1]!;
    image.set(data.subarray(at, at + end - start), packed.header + start);
    at += end - start;
  }
  return image;
}
