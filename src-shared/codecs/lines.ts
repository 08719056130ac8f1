// Splits text that arrives in chunks into lines, keeping line numbers. A line may span many
// chunks (a reference-library line is a whole trajectory, megabytes long): its pieces are
// kept in a list and joined once, so long lines cost O(length), not O(length × chunks).

export interface Line {
  /** 1-based. */
  no: number;
  text: string;
  /** False for a last line with no newline after it (a file cut mid-write). */
  terminated: boolean;
}

export class LineSplitter {
  private parts: string[] = [];
  private next = 1;

  push(chunk: string): Line[] {
    const out: Line[] = [];
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', from);
      if (nl < 0) break;
      let piece = chunk.slice(from, nl);
      if (this.parts.length > 0) {
        this.parts.push(piece);
        piece = this.parts.join('');
        this.parts = [];
      }
      out.push({ no: this.next++, text: stripCr(piece), terminated: true });
      from = nl + 1;
    }
    if (from < chunk.length) this.parts.push(chunk.slice(from));
    return out;
  }

  /** The unterminated last line, if any. */
  end(): Line[] {
    if (this.parts.length === 0) return [];
    const text = this.parts.join('');
    this.parts = [];
    return [{ no: this.next++, text: stripCr(text), terminated: false }];
  }

  /** Characters held for the current incomplete line. */
  get pending(): number {
    let n = 0;
    for (const p of this.parts) n += p.length;
    return n;
  }
}

function stripCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

/** A problem found while reading a file: where, how bad, and what in words. */
export interface ReadProblem {
  /** 1-based line number, or null for the file as a whole. */
  line: number | null;
  /** 'error': something could not be read; 'warning': read, but with a caveat. */
  severity: 'error' | 'warning';
  message: string;
}

export function formatProblem(p: ReadProblem): string {
  return p.line === null ? p.message : `line ${p.line}: ${p.message}`;
}

/**
 * Keeps a damaged file from producing a million identical messages: the first few
 * problems of each kind are reported in full, the rest are counted and summarised.
 */
export class ProblemLimiter {
  private counts = new Map<string, { shown: number; hidden: number; firstHiddenLine: number | null; severity: ReadProblem['severity'] }>();
  private readonly perKind: number;

  constructor(perKind = 10) {
    this.perKind = perKind;
  }

  /** Returns the problem to report now, or null when it is only counted. */
  add(kind: string, p: ReadProblem): ReadProblem | null {
    let c = this.counts.get(kind);
    if (!c) {
      c = { shown: 0, hidden: 0, firstHiddenLine: null, severity: p.severity };
      this.counts.set(kind, c);
    }
    if (c.shown < this.perKind) {
      c.shown++;
      return p;
    }
    if (c.hidden === 0) c.firstHiddenLine = p.line;
    c.hidden++;
    return null;
  }

  summary(): ReadProblem[] {
    const out: ReadProblem[] = [];
    for (const [kind, c] of this.counts) {
      if (c.hidden > 0) {
        out.push({
          line: null,
          severity: c.severity,
          message: `${c.hidden} more line(s) with the same problem (${kind}), from line ${c.firstHiddenLine ?? '?'}`,
        });
      }
    }
    return out;
  }
}
