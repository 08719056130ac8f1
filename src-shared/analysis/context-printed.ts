// Whether a run "printed the context": some stdout of its blocks contains a 64-character
// stretch of the context that starts at a multiple of 32 in it (a context shorter than 64
// characters: the whole of it). Any copied span of 95
// characters or more is always caught (it contains such a stretch whole); shorter ones may
// be. Cheap: the context's stretches are hashed once, and each output is scanned with a
// rolling hash, a hit being confirmed by comparing the characters.
const PRINT_WINDOW = 64;
const STRIDE = 32;
const BASE = 257;
const MOD = 2_147_483_629; // a prime below 2^31: products stay exact in doubles

function pow(n: number): number {
  let r = 1;
  for (let i = 0; i < n; i++) r = (r * BASE) % MOD;
  return r;
}
const TOP = pow(PRINT_WINDOW - 1);

function hashAt(s: string, from: number): number {
  let h = 0;
  for (let i = from; i < from + PRINT_WINDOW; i++) h = (h * BASE + s.charCodeAt(i)) % MOD;
  return h;
}

/** The context's stretches by hash (start offsets), built once per context. */
export class ContextPrints {
  private readonly byHash = new Map<number, number[]>();
  private readonly context: string;
  constructor(context: string) {
    this.context = context;
    for (let at = 0; at + PRINT_WINDOW <= context.length; at += STRIDE) {
      const h = hashAt(context, at);
      const list = this.byHash.get(h);
      if (list) list.push(at);
      else this.byHash.set(h, [at]);
    }
  }

  /** True when `output` holds one of the context's stretches. */
  seenIn(output: string): boolean {
    if (this.context.length < PRINT_WINDOW) return this.context !== '' && output.includes(this.context);
    if (output.length < PRINT_WINDOW) return false;
    let h = hashAt(output, 0);
    for (let i = 0; ; i++) {
      const starts = this.byHash.get(h);
      if (starts && starts.some((at) => this.context.startsWith(output.slice(i, i + PRINT_WINDOW), at))) return true;
      const next = i + PRINT_WINDOW;
      if (next >= output.length) return false;
      h = (h - ((output.charCodeAt(i) * TOP) % MOD) + MOD) % MOD;
      h = (h * BASE + output.charCodeAt(next)) % MOD;
    }
  }
}
