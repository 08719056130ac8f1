// The statistics of a paired comparison (docs/statistics.md has the formulas and a worked
// example): a seeded generator, the normal and Student t distributions, exact binomial sign
// tests (McNemar's exact test when each task ran once), the exact Wilcoxon signed-rank test,
// the paired t test on cluster-robust standard errors, the BCa bootstrap interval of a mean,
// and the unbiased pass@k and pass^k of repeated sessions. Pure functions, no dependencies.

/** Mulberry32: a small, fast generator whose stream is fixed by its 32-bit seed (reproducible intervals). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return xs.length === 0 ? Number.NaN : s / xs.length;
}

/** Sample variance (n − 1 in the denominator); 0 for fewer than two values. */
export function sampleVariance(xs: readonly number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) * (x - m);
  return s / (n - 1);
}

// ---------------------------------------------------------------------------------------
// Distributions

/** erfc with relative error below 1.2e-7 everywhere (Numerical Recipes' Chebyshev fit). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Standard normal CDF Φ(x). */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** Φ⁻¹(p) by Acklam's rational approximation (relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  const lo = 0.02425;
  let x: number;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  } else if (p <= 1 - lo) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  return x;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7). */
function logGamma(x: number): number {
  const g = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let s = g[0] as number;
  for (let i = 1; i < 9; i++) s += (g[i] as number) / (y + i);
  const t = y + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(s);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-14) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** Two-sided p-value of Student's t with `df` degrees of freedom: P(|T| ≥ |t|). */
export function studentTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return Number.isNaN(t) ? Number.NaN : 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

// ---------------------------------------------------------------------------------------
// Tests

export interface SignTest {
  /** `exact McNemar` when every task ran once on each side with a yes/no outcome, else `exact sign test`. */
  name: 'exact McNemar' | 'exact sign test';
  /** Tasks where A did better (McNemar's b: A right, B wrong). */
  aBetter: number;
  /** Tasks where B did better (McNemar's c). */
  bBetter: number;
  /** Tasks with no difference: left out of the test. */
  ties: number;
  pValue: number;
}

/** Two-sided exact binomial test of k successes in n trials at p = ½: 2 · P(X ≤ min(k, n − k)), at most 1. */
export function binomialTwoSidedP(k: number, n: number): number {
  if (n === 0) return 1;
  const lo = Math.min(k, n - k);
  // Σ C(n, i) / 2ⁿ for i ≤ lo, in logs (n can be thousands).
  let logC = 0;
  let sum = 0;
  const ln2n = n * Math.LN2;
  for (let i = 0; i <= lo; i++) {
    if (i > 0) logC += Math.log((n - i + 1) / i);
    sum += Math.exp(logC - ln2n);
  }
  return Math.min(1, 2 * sum);
}

/** The exact sign test of paired differences (zeros dropped). */
export function signTest(diffs: readonly number[], binary: boolean): SignTest {
  let pos = 0;
  let neg = 0;
  for (const d of diffs) {
    if (d > 0) pos++;
    else if (d < 0) neg++;
  }
  return {
    name: binary ? 'exact McNemar' : 'exact sign test',
    aBetter: pos,
    bBetter: neg,
    ties: diffs.length - pos - neg,
    pValue: binomialTwoSidedP(pos, pos + neg),
  };
}

export interface SignedRankTest {
  name: 'Wilcoxon signed-rank';
  /** W⁺: the sum of the ranks of |d| over the positive differences (ties get their average rank). */
  wPlus: number;
  /** Non-zero differences ranked (zeros dropped). */
  n: number;
  /** Exact (the permutation distribution of the signs, ties included) up to 400 differences, else the normal approximation. */
  exact: boolean;
  pValue: number;
}

const EXACT_RANKS_MAX = 400;

/** Ranks of |d| (1-based, ties averaged), doubled so that half ranks stay integers. */
function doubledRanks(abs: readonly number[]): number[] {
  const order = abs.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(abs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && (order[j + 1] as readonly [number, number])[0] === (order[i] as readonly [number, number])[0]) j++;
    // Positions i..j (0-based) share the average rank (i + j) / 2 + 1; doubled: i + j + 2.
    for (let k = i; k <= j; k++) out[(order[k] as readonly [number, number])[1]] = i + j + 2;
    i = j + 1;
  }
  return out;
}

/** Wilcoxon's signed-rank test of paired differences, two-sided; zero differences are dropped (Wilcoxon's convention). */
export function signedRankTest(diffs: readonly number[]): SignedRankTest {
  const nz = diffs.filter((d) => d !== 0);
  const n = nz.length;
  if (n === 0) return { name: 'Wilcoxon signed-rank', wPlus: 0, n: 0, exact: true, pValue: 1 };
  const r2 = doubledRanks(nz.map(Math.abs));
  let w2 = 0;
  nz.forEach((d, i) => {
    if (d > 0) w2 += r2[i] as number;
  });
  const total2 = r2.reduce((a, b) => a + b, 0);
  if (n <= EXACT_RANKS_MAX) {
    // Under H0 each sign is + or − with probability ½: count the sign patterns by their W⁺ (doubled).
    const counts = new Float64Array(total2 + 1);
    counts[0] = 1;
    let reach = 0;
    for (const r of r2) {
      reach += r;
      // In place, from the top: P(s) becomes ½ P(s) + ½ P(s − r), the lower entry not yet updated.
      for (let s = reach; s >= 0; s--) counts[s] = 0.5 * (counts[s] as number) + (s >= r ? 0.5 * (counts[s - r] as number) : 0);
    }
    // Two-sided: the probability of a W⁺ at least as far from its mean (total/2) as the one seen.
    const dev = Math.abs(w2 - total2 / 2);
    let p = 0;
    for (let s = 0; s <= total2; s++) if (Math.abs(s - total2 / 2) >= dev - 1e-9) p += counts[s] as number;
    return { name: 'Wilcoxon signed-rank', wPlus: w2 / 2, n, exact: true, pValue: Math.min(1, p) };
  }
  // Normal approximation with the tie correction and a continuity correction.
  const w = w2 / 2;
  const mu = (n * (n + 1)) / 4;
  const sumR2 = r2.reduce((a, r) => a + (r / 2) * (r / 2), 0);
  const sigma = Math.sqrt(sumR2 / 4);
  const z = sigma === 0 ? 0 : Math.max(0, Math.abs(w - mu) - 0.5) / sigma;
  return { name: 'Wilcoxon signed-rank', wPlus: w, n, exact: false, pValue: Math.min(1, 2 * (1 - normalCdf(z))) };
}

export interface PairedT {
  t: number;
  df: number;
  pValue: number;
}

/** The paired t test of the mean difference on its standard error (df = tasks − 1). */
export function pairedT(diff: number, se: number, n: number): PairedT {
  const df = n - 1;
  if (n < 2) return { t: Number.NaN, df, pValue: Number.NaN };
  if (se === 0) return { t: diff === 0 ? 0 : Math.sign(diff) * Number.POSITIVE_INFINITY, df, pValue: diff === 0 ? 1 : 0 };
  const t = diff / se;
  return { t, df, pValue: studentTwoSidedP(t, df) };
}

// ---------------------------------------------------------------------------------------
// Bootstrap

export interface Interval {
  low: number;
  high: number;
}

/**
 * The BCa (bias-corrected and accelerated) bootstrap interval of the mean of `xs`: `resamples`
 * means of `xs` drawn with replacement from a generator seeded by `seed`, read at the
 * percentiles the bias correction z₀ and the jackknife acceleration â move the nominal ones to.
 * Resampling the per-task differences resamples whole tasks (a cluster bootstrap).
 */
export function bootstrapMeanInterval(xs: readonly number[], confidence: number, resamples: number, seed: number): Interval {
  const n = xs.length;
  if (n === 0) return { low: Number.NaN, high: Number.NaN };
  const theta = mean(xs);
  if (xs.every((x) => x === xs[0])) return { low: theta, high: theta };
  const rand = seededRandom(seed);
  const boots = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += xs[Math.floor(rand() * n)] as number;
    boots[b] = s / n;
  }
  boots.sort();
  let below = 0;
  let equal = 0;
  for (const v of boots) {
    if (v < theta) below++;
    else if (v === theta) equal++;
  }
  // Kept inside (0, 1) so z₀ stays finite when every resample fell on one side.
  const prop = Math.min(1 - 0.5 / resamples, Math.max(0.5 / resamples, (below + equal / 2) / resamples));
  const z0 = normalQuantile(prop);
  // Jackknife: the mean without each value in turn.
  const total = theta * n;
  let num = 0;
  let den = 0;
  if (n > 1) {
    const jack = xs.map((x) => (total - x) / (n - 1));
    const jm = mean(jack);
    for (const j of jack) {
      num += (jm - j) ** 3;
      den += (jm - j) ** 2;
    }
  }
  const accel = den === 0 ? 0 : num / (6 * den ** 1.5);
  const at = (alpha: number): number => {
    const z = normalQuantile(alpha);
    const adj = normalCdf(z0 + (z0 + z) / (1 - accel * (z0 + z)));
    return quantileOfSorted(boots, adj);
  };
  const tail = (1 - confidence) / 2;
  return { low: at(tail), high: at(1 - tail) };
}

/** The q-quantile (0–1) of ascending values, interpolated linearly between order statistics. */
function quantileOfSorted(sorted: Float64Array, q: number): number {
  const pos = Math.min(1, Math.max(0, q)) * (sorted.length - 1);
  const i = Math.floor(pos);
  const lo = sorted[i] as number;
  const hi = sorted[Math.min(sorted.length - 1, i + 1)] as number;
  return lo + (hi - lo) * (pos - i);
}

// ---------------------------------------------------------------------------------------
// Repeats

/** C(n, k) as a float (exact for the sizes repeats have). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** The unbiased estimate of pass@k (some of k sessions correct) from n sessions with c correct: 1 − C(n−c, k)/C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  return 1 - choose(n - c, k) / choose(n, k);
}

/** The unbiased estimate of pass^k (all of k sessions correct) from n sessions with c correct: C(c, k)/C(n, k). */
export function passHatK(n: number, c: number, k: number): number {
  return choose(c, k) / choose(n, k);
}
