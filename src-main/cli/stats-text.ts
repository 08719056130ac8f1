// The compact text summary `rlm-studio stats` prints after its table: the policy figures as
// median [p25–p75] and max across sessions, where the tokens went, correct vs incorrect,
// repeats; and for `--compare`, which tasks each configuration solved.
import type { PolicyAggregate, SessionRow, SuccessIntersection, TaskRef } from '../../src-shared/analysis/policy-aggregate.ts';
import type { SessionFigure } from '../../src-shared/analysis/policy-metrics.ts';
import type { Quartiles } from '../../src-shared/trajectory/distributions.ts';
import type { PolicySource } from '../analysis/policy-sources.ts';

const SUMMARY: [SessionFigure, string][] = [
  ['rootIterations', 'root iterations'],
  ['codeBlocks', 'code blocks'],
  ['subcalls', 'sub-calls'],
  ['subcallsPerIterationMean', 'sub-calls per iteration'],
  ['fanOutMax', 'largest fan-out'],
  ['batchSizeMax', 'largest batch'],
  ['maxDepth', 'depth'],
  ['modelMs', 'model time (ms)'],
  ['replMs', 'REPL time (ms)'],
  ['blockErrors', 'blocks that raised'],
  ['replResets', 'REPL resets'],
  ['compactions', 'compactions'],
];

const num = (x: number): string =>
  !Number.isFinite(x) ? '–' : Number.isInteger(x) ? x.toLocaleString('en-US') : x.toLocaleString('en-US', { maximumFractionDigits: 2 });

const q = (d: Quartiles | null): string =>
  d === null || d.n === 0 ? 'none' : d.n === 1 ? num(d.p50) : `${num(d.p50)} [${num(d.p25)}–${num(d.p75)}] max ${num(d.max)}`;

const pct = (part: number, whole: number): string => (whole > 0 ? `${((part / whole) * 100).toFixed(1)}%` : '–');

export function formatPolicy(agg: PolicyAggregate, rows: readonly SessionRow[]): string {
  if (agg.sessions === 0) return 'policy: no sessions\n';
  const several = agg.sessions > 1;
  const lines = [several ? `policy, per session (median [p25–p75] max) over ${agg.sessions} sessions:` : 'policy:'];
  const width = Math.max(...SUMMARY.map(([, l]) => l.length));
  // No batch anywhere (reference logs record none as such): "none recorded", not a largest batch of 0.
  const noBatches = rows.every((r) => r.metrics.figures.batchSizeMax === 0);
  for (const [f, label] of SUMMARY)
    lines.push(`  ${label.padEnd(width)}  ${f === 'batchSizeMax' && noBatches ? 'none recorded' : q(agg.distributions[f].quartiles)}`);
  const share = { root: 0, subcalls: 0, children: 0 };
  for (const r of rows) {
    const t = r.metrics.runs[0]?.tokens;
    if (!t) continue;
    share.root += t.root.inputTokens + t.root.outputTokens;
    share.subcalls += t.subcalls.inputTokens + t.subcalls.outputTokens;
    share.children += t.children.inputTokens + t.children.outputTokens;
  }
  const all = share.root + share.subcalls + share.children;
  lines.push(
    `  tokens: root ${pct(share.root, all)} · sub-calls ${pct(share.subcalls, all)} · child runs ${pct(share.children, all)} (of ${num(all)})`,
  );
  const c = agg.byCorrectness;
  if (c) {
    lines.push(
      `  correct ${c.correct}, incorrect ${c.incorrect}${c.unknown ? `, unknown ${c.unknown}` : ''}; sub-calls per session: correct ${q(c.correctDist.subcalls.quartiles)}, incorrect ${q(c.incorrectDist.subcalls.quartiles)}`,
    );
  }
  if (agg.repeats.length > 0) {
    const worst = [...agg.repeats].sort((a, b) => b.spread.subcalls.stddev - a.spread.subcalls.stddev)[0];
    lines.push(
      `  repeats: ${agg.repeats.length} task(s) with several sessions${worst ? `; most variable sub-calls: ${worst.taskLabel} (sd ${num(worst.spread.subcalls.stddev)} over ${worst.sessions})` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** A task's name, with how many of its sessions each side got right when either side repeated it. */
function taskName(r: TaskRef): string {
  const repeated = r.outcomeA.known > 1 || r.outcomeB.known > 1;
  return repeated ? `${r.taskLabel} (${r.outcomeA.correct}/${r.outcomeA.known} vs ${r.outcomeB.correct}/${r.outcomeB.known})` : r.taskLabel;
}

function taskList(refs: readonly TaskRef[], max = 20): string {
  const shown = refs.slice(0, max).map(taskName);
  return refs.length > max ? `${shown.join(', ')}, … (${refs.length - max} more)` : shown.join(', ');
}

export function formatComparison(pathA: string, a: PolicySource, pathB: string, b: PolicySource, x: SuccessIntersection): string {
  const side = (name: string, path: string, s: PolicySource): string => {
    const known = s.rows.filter((r) => r.correct !== null);
    const ok = known.filter((r) => r.correct === true).length;
    const tasks = new Set(s.rows.map((r) => r.taskKey)).size;
    const sessions = tasks === s.rows.length ? `${tasks} task(s)` : `${s.rows.length} session(s) of ${tasks} task(s)`;
    return `${name}: ${path} (${s.kind}, ${sessions}${known.length ? `, ${ok}/${known.length} correct` : ', correctness unknown'})`;
  };
  const lines = [
    side('A', pathA, a),
    side('B', pathB, b),
    `solved by both: ${x.both.length}`,
    `only A: ${x.onlyA.length}${x.onlyA.length ? ` — ${taskList(x.onlyA)}` : ''}`,
    `only B: ${x.onlyB.length}${x.onlyB.length ? ` — ${taskList(x.onlyB)}` : ''}`,
    `neither: ${x.neither.length}`,
  ];
  if (x.notCompared.length > 0) lines.push(`not compared (one side lacks the task or its result): ${x.notCompared.length}`);
  const all = [...x.both, ...x.onlyA, ...x.onlyB, ...x.neither];
  if (all.some((r) => r.outcomeA.known > 1 || r.outcomeB.known > 1))
    lines.push('repeated tasks: solved by a side when at least half of its sessions there were correct (correct/sessions, A vs B)');
  return `${lines.join('\n')}\n`;
}
