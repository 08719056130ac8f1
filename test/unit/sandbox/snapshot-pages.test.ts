// A Pyodide snapshot packed without its zero pages unpacks to the same bytes, and the packed
// form holds only the header and the nonzero pages (what each interpreter copies into memory).
import { describe, expect, it } from 'vitest';
import { packSnapshot, SNAPSHOT_PAGE, unpackSnapshot } from '../../../src-main/sandbox/python/snapshot-pages.ts';

/** An image laid out as Pyodide's: a magic number, the header's length at byte 4, then memory. */
function image(header: number, pages: (number | null)[], tail = 0): Uint8Array {
  const out = new Uint8Array(header + pages.length * SNAPSHOT_PAGE + tail);
  new DataView(out.buffer).setUint32(0, 0x12345678, true);
  new DataView(out.buffer).setUint32(4, header, true);
  out.fill(7, 8, header);
  pages.forEach((v, i) => {
    // One nonzero byte, placed differently per page, makes the page nonzero.
    if (v !== null) out[header + i * SNAPSHOT_PAGE + ((i * 97) % SNAPSHOT_PAGE)] = v;
  });
  if (tail) out[out.length - 1] = 9;
  return out;
}

describe('packSnapshot', () => {
  it('keeps the header and the nonzero pages, merged into runs, and unpacks to the same bytes', () => {
    const img = image(128, [1, 2, null, null, 3, null, 4, 5, 6]);
    const packed = packSnapshot(img);
    expect(packed.header).toBe(128);
    expect(packed.length).toBe(img.length);
    const P = SNAPSHOT_PAGE;
    expect([...packed.runs]).toEqual([0, 2 * P, 4 * P, 5 * P, 6 * P, 9 * P]);
    expect(packed.data.byteLength).toBe(128 + 6 * P);
    expect(Buffer.from(unpackSnapshot(packed)).equals(Buffer.from(img))).toBe(true);
  });

  it('keeps a last page shorter than a whole one', () => {
    const img = image(64, [null, 1], 100);
    const packed = packSnapshot(img);
    expect([...packed.runs]).toEqual([SNAPSHOT_PAGE, 2 * SNAPSHOT_PAGE + 100]);
    expect(Buffer.from(unpackSnapshot(packed)).equals(Buffer.from(img))).toBe(true);
  });

  it('packs an all-zero memory to its header alone', () => {
    const packed = packSnapshot(image(48, [null, null, null]));
    expect(packed.runs.length).toBe(0);
    expect(packed.data.byteLength).toBe(48);
  });

  it('refuses an image shorter than its header says', () => {
    const img = image(64, []);
    new DataView(img.buffer).setUint32(4, 1 << 20, true);
    expect(() => packSnapshot(img)).toThrow(/header \(1048576 bytes\) is longer than the snapshot/);
    expect(() => packSnapshot(new Uint8Array(4))).toThrow(/shorter than its header/);
  });
});
