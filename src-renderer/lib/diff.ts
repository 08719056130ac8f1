// A line diff (Myers' O(ND) algorithm) for showing a recorded block output beside the one a
// re-execution produced. Outputs are short as a rule, but a block can print megabytes: past
// `maxEdits` differing lines the diff gives up on alignment and shows all of one side
// removed and all of the other added, which is still correct, only less helpful.

type DiffOp = 'same' | 'removed' | 'added';

export interface DiffLine {
  op: DiffOp;
  text: string;
}

function splitLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function diffLines(before: string, after: string, maxEdits = 500): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // Common head and tail are cheap to take off first, and usually most of the text.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: DiffLine[] = a.slice(0, head).map((text) => ({ op: 'same', text }));
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  out.push(...myers(midA, midB, maxEdits));
  for (const text of a.slice(a.length - tail)) out.push({ op: 'same', text });
  return out;
}

function myers(a: string[], b: string[], maxEdits: number): DiffLine[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((text) => ({ op: 'added', text }));
  if (m === 0) return a.map((text) => ({ op: 'removed', text }));
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))
          ? (v[offset + k + 1] as number)
          : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    v = next;
  }
  if (!found) return [...a.map((text): DiffLine => ({ op: 'removed', text })), ...b.map((text): DiffLine => ({ op: 'added', text }))];
  // Walk the trace back from the end to recover the edit script.
  const rev: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d] as Int32Array;
    const k = x - y;
    const prevK = k === -d || (k !== d && (vd[offset + k - 1] as number) < (vd[offset + k + 1] as number)) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : (vd[offset + prevK] as number);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      rev.push({ op: 'same', text: a[x - 1] as string });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) rev.push({ op: 'added', text: b[prevY] as string });
      else rev.push({ op: 'removed', text: a[prevX] as string });
    }
    x = prevX;
    y = prevY;
  }
  return rev.reverse();
}
