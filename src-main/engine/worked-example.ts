// A saved trajectory rendered as a worked example for a new run's system prompt: the query,
// the root run's code blocks turn by turn with the REPL output it saw (shortened), and its
// answer, within a character budget. Outputs are shortened first, then middle turns are left
// out with a note; a code block is never cut, so a fence always closes.
import { basename } from 'node:path';
import { replLanguageOf, type ReplLanguage } from '../../src-shared/events.ts';
import { blocksOf, type IterationNode, type RunNode, type TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { MARKERS } from '../lm/prompt-markers.ts';
import { buildReplOutputMessage } from './prompts.ts';

export { DEFAULT_EXAMPLE_BUDGET } from '../../src-shared/events.ts';

/** A rendered example, ready for the engine's system prompt. */
export interface WorkedExample {
  /** Where it came from (a log path), as shown to the user and recorded in `run.start`. */
  source: string;
  /** The REPL language of the example's code. */
  repl: ReplLanguage;
  text: string;
}

export class WorkedExampleError extends Error {
  override name = 'WorkedExampleError';
}

/** One root turn as the example shows it. */
interface Turn {
  iteration: number;
  codes: string[];
  output: string;
}

/** Output caps tried in order until the example fits; 0 shows only that there was output. */
const OUTPUT_CAPS = [4_000, 1_500, 600, 250, 100, 0] as const;
const ANSWER_CAPS = [2_000, 2_000, 1_000, 500, 300, 200] as const;

function shorten(text: string, cap: number): string {
  if (text.length <= cap) return text;
  if (cap === 0) return `[${text.length} characters of output left out]`;
  return `${text.slice(0, cap)}\n… [${text.length - cap} more characters left out]`;
}

/** A fence longer than any run of backticks in the code, so the code cannot close it early. */
function fenced(code: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}repl\n${code.replace(/\n$/, '')}\n${ticks}`;
}

/** The output the model saw after this turn: the REPL-output message(s) the log kept, else rebuilt from the blocks. */
function outputSeen(it: IterationNode, language: ReplLanguage): string {
  const appended = it.end?.appended ?? [];
  const seen = appended.filter((m) => m.role === 'user' && m.content.startsWith(MARKERS.replOutput)).map((m) => m.content);
  if (seen.length > 0) return seen.join('\n\n');
  const ends = blocksOf(it).flatMap((b) => (b.end ? [b.end] : []));
  if (ends.length === 0) return '';
  return buildReplOutputMessage(
    ends.map((e) => ({ stdout: e.stdout, stderr: e.stderr, error: e.error, variables: e.variables, replReset: null })),
    language,
  );
}

function turnsOf(run: RunNode, language: ReplLanguage): Turn[] {
  const turns: Turn[] = [];
  for (const it of run.iterations) {
    const codes = blocksOf(it).flatMap((b) => (b.start ? [b.start.code] : []));
    if (codes.length === 0) continue;
    turns.push({ iteration: it.iteration, codes, output: outputSeen(it, language) });
  }
  return turns;
}

/** The first root run that wrote code: the one a multi-turn log's example is taken from. */
function exampleRun(state: TrajectoryState): { run: RunNode; turns: Turn[] } | null {
  for (const id of state.roots) {
    const run = state.runs.get(id);
    if (!run) continue;
    const language = replLanguageOf(run.start ?? state.header);
    const turns = turnsOf(run, language);
    if (turns.length > 0) return { run, turns };
  }
  return null;
}

function render(
  title: string,
  query: string | null,
  turns: (Turn | { omitted: number[] })[],
  answer: string | null,
  outputCap: number,
  answerCap: number,
): string {
  const parts = [title];
  if (query !== null && query.trim() !== '') parts.push(`${MARKERS.query}${query}`);
  for (const t of turns) {
    if ('omitted' in t) {
      const first = t.omitted[0]!;
      const last = t.omitted[t.omitted.length - 1]!;
      parts.push(`[${first === last ? `Turn ${first}` : `Turns ${first}–${last}`} left out to fit the budget]`);
      continue;
    }
    parts.push(`Turn ${t.iteration}:\n${t.codes.map(fenced).join('\n')}`);
    if (t.output !== '') parts.push(shorten(t.output, outputCap));
  }
  parts.push(answer === null ? 'The run ended without an answer.' : `Final answer: ${shorten(answer, answerCap)}`);
  return parts.join('\n\n');
}

/** Turns with the ones at `omitted` indices replaced by one note per contiguous gap. */
function withGaps(turns: Turn[], omitted: Set<number>): (Turn | { omitted: number[] })[] {
  const out: (Turn | { omitted: number[] })[] = [];
  turns.forEach((t, i) => {
    if (!omitted.has(i)) return void out.push(t);
    const last = out[out.length - 1];
    if (last && 'omitted' in last) last.omitted.push(t.iteration);
    else out.push({ omitted: [t.iteration] });
  });
  return out;
}

/**
 * Renders the log's first root run that wrote code as a worked example of at most `budget`
 * characters. Throws a `WorkedExampleError` naming `source` when the log has no such run, or
 * when even its shortest form (first and last turn, outputs and answer cut short) does not fit.
 */
export function renderWorkedExample(state: TrajectoryState, source: string, budget: number): WorkedExample {
  const found = exampleRun(state);
  if (!found) throw new WorkedExampleError(`${source} has no root iteration with code to show as an example`);
  const { run, turns } = found;
  const language = replLanguageOf(run.start ?? state.header);
  const name = language === 'python' ? 'Python' : 'JavaScript';
  const title = `Example from ${basename(source)} (a ${name} REPL, ${turns.length} turn${turns.length === 1 ? '' : 's'} with code):`;
  const query = run.start?.query ?? null;
  const answer = run.end?.answer ?? null;

  for (let level = 0; level < OUTPUT_CAPS.length; level++) {
    const text = render(title, query, turns, answer, OUTPUT_CAPS[level]!, ANSWER_CAPS[level]!);
    if (text.length <= budget) return { source, repl: language, text };
  }
  // Leave out turns from the middle outwards, keeping the first (how it probed) and the last
  // (how it finished) as long as possible.
  const outputCap = OUTPUT_CAPS[OUTPUT_CAPS.length - 1]!;
  const answerCap = ANSWER_CAPS[ANSWER_CAPS.length - 1]!;
  const order = middleOutOrder(turns.length);
  const omitted = new Set<number>();
  let shortest = Infinity;
  for (const i of order) {
    omitted.add(i);
    const text = render(title, query, withGaps(turns, omitted), answer, outputCap, answerCap);
    shortest = Math.min(shortest, text.length);
    if (text.length <= budget) return { source, repl: language, text };
  }
  if (order.length === 0) shortest = render(title, query, turns, answer, outputCap, answerCap).length;
  throw new WorkedExampleError(
    `the example budget of ${budget} characters is too small for ${source}: its shortest rendering has ${shortest}`,
  );
}

/**
 * Indices of turns 1…n-2 (never the first or last) from the middle outwards: the order in
 * which they are left out. A single-turn or two-turn run has none to leave out.
 */
function middleOutOrder(n: number): number[] {
  const inner = Array.from({ length: Math.max(0, n - 2) }, (_, i) => i + 1);
  const mid = (n - 1) / 2;
  return inner.sort((a, b) => Math.abs(a - mid) - Math.abs(b - mid) || a - b);
}

/**
 * The section the root run's system prompt ends with. Each example says its REPL language;
 * one written for another language than this run's is still shown (the way of working
 * carries over; the code does not), with a sentence saying so.
 */
export function workedExamplesSection(examples: WorkedExample[], language: ReplLanguage): string {
  const name = (l: ReplLanguage): string => (l === 'python' ? 'Python' : 'JavaScript');
  const blocks = examples.map((e, i) => {
    const note =
      e.repl === language
        ? ''
        : `\n(This example's code is ${name(e.repl)}; your REPL is ${name(language)}: take the approach, write it in ${name(language)}.)`;
    return `--- Worked example ${i + 1} ---\n${e.text}${note}`;
  });
  return `\n\nWorked examples\nThe following ${examples.length === 1 ? 'is a run' : 'are runs'} on other contexts and queries, recorded earlier and shortened, to show the way of working. ${examples.length === 1 ? 'Its' : 'Their'} data, variables and answers are not yours: your context is in your REPL.\n\n${blocks.join('\n\n')}`;
}
