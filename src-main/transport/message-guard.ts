// What a WebSocket message may be before the host parses it. `JSON.parse` of 20 MB of nested
// brackets took the host from 204 MB to 1.18 GB and stalled every other client for seconds:
// the size is capped by the socket (MAX_MESSAGE_BYTES, enforced by `ws` while the frames
// arrive), the nesting by one pass over the bytes here, before any object is made.

/**
 * The largest command the page sends in one message. The big ones (a context picked in the
 * new-run or follow-up form, a log opened through the host) go by `POST /api/upload` when they
 * are larger than the page's UPLOAD_ABOVE_CHARS (1 Mi characters, so at most 4 MiB as UTF-8);
 * what stays inline is edited code, a system prompt (at most 1 M characters), a counterfactual's
 * prompt, notes: far below this.
 */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** No command nests deeper than a handful of levels (a run's parameters, its breakpoints). */
export const MAX_MESSAGE_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether the JSON text in `bytes` opens more than `max` arrays or objects inside one another
 * (brackets inside strings do not count). Malformed text is left for `JSON.parse` to refuse.
 */
export function nestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--;
  }
  return false;
}
