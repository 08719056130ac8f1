// Import of the reference library's log (see rlm-python-format.ts) into our events.
//
// What the reference format does not say, and how we fill it in:
// - Timestamps are local time without a zone; we read them as UTC. `t` is synthesised from
//   them and from `iteration_time`/`execution_time`, kept monotonic.
// - Root turns' token usage is never logged (it is returned to the caller only): those
//   replies get zero tokens and an unknown cost. A child run's `usage_summary` (its LM
//   handler's total) is apportioned evenly over the child's replies. Note the reference
//   counts a child's `llm_query` calls in that total and again in their own rlm_calls
//   entries; we import both as logged (we cannot tell them from leaf `rlm_query` calls).
// - Plain calls and leaf `rlm_query` calls look the same (no `metadata`): both become
//   kind 'llm' sub-calls.
// - Child iterations' `prompt` lists are all the child's final history (RLM-SPEC Q4): we
//   rebuild each turn's list from it. Paper-era logs send the per-turn prompt without
//   keeping it in history: it becomes the reply's `transient` message, as the engine records
//   a request sent with one call only.
// - `locals` (every variable after a block, the whole value each time, context included) are
//   kept on block.end where short: a value whose JSON has at most 200 characters as logged,
//   a longer string as its first 200 characters and "…", anything longer as its JSON cut to
//   200 characters ending in "…" (as native runs record them; a 40 MB context logged twice
//   per block would otherwise be held in memory for every block).
// - `environment_type` "javascript" (our export of a JavaScript REPL run) marks the runs as
//   JavaScript; anything else ("local" and the reference's other environments) as Python.
import { asRunId, type TrajectoryEvent } from '../events.ts';
import { LineSplitter, ProblemLimiter, type Line, type ReadProblem } from './lines.ts';
import { parsePythonJson } from './python-json.ts';
import { shortenLocals } from './rlm-python-locals.ts';
import { parsePyTimestamp, type RlmPythonMetadata } from './rlm-python-format.ts';
import { isObj, readEntry, readMetadata } from './rlm-python-entries.ts';
import { PromptReuse } from './rlm-python-prompt-reuse.ts';
import { limitsOf, RunWriter, Stamper } from './rlm-python-run-writer.ts';

export type RlmPythonItem =
  | { kind: 'metadata'; metadata: RlmPythonMetadata; line: number }
  | { kind: 'event'; event: TrajectoryEvent; line: number }
  | { kind: 'problem'; problem: ReadProblem };

export interface RlmPythonReaderOptions {
  /** Prefix of run ids (default `r`): root runs are `<prefix><turn>`. */
  runPrefix?: string;
  /** Parse every line whole: no reuse of the previous line's prompt, no cutting of `locals` (tests compare the two). */
  wholeLines?: boolean;
}

export class RlmPythonReader {
  private splitter = new LineSplitter();
  private limiter = new ProblemLimiter();
  private stamper = new Stamper();
  private meta: RlmPythonMetadata | null = null;
  private root: RunWriter | null = null;
  private lastIteration = 0;
  private turn = -1;
  private out: RlmPythonItem[] = [];
  private line = 0;
  private sawAnything = false;
  private ended = false;
  private readonly prefix: string;
  private warned = new Set<string>();
  errors = 0;
  events = 0;

  private readonly prompts: PromptReuse | null;

  constructor(options: RlmPythonReaderOptions = {}) {
    this.prefix = options.runPrefix ?? 'r';
    this.prompts = options.wholeLines ? null : new PromptReuse();
  }

  push(chunk: string): RlmPythonItem[] {
    for (const line of this.splitter.push(chunk)) this.readLine(line);
    return this.take();
  }

  pushLine(text: string, no: number, terminated = true): RlmPythonItem[] {
    this.readLine({ no, text, terminated });
    return this.take();
  }

  end(): RlmPythonItem[] {
    if (this.ended) return [];
    this.ended = true;
    for (const line of this.splitter.end()) this.readLine(line);
    this.closeRoot();
    if (!this.sawAnything) this.problem('empty', { line: null, severity: 'error', message: 'the file is empty' });
    else if (this.turn < 0)
      this.problem('no-iterations', {
        line: null,
        severity: 'warning',
        message: 'the log has no iteration lines (a run that never got to its first model reply?)',
      });
    for (const p of this.limiter.summary()) this.out.push({ kind: 'problem', problem: p });
    return this.take();
  }

  private take(): RlmPythonItem[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  private problem(kind: string, p: ReadProblem): void {
    if (p.severity === 'error') this.errors++;
    const shown = this.limiter.add(kind, p);
    if (shown) this.out.push({ kind: 'problem', problem: shown });
  }

  private emit = (e: TrajectoryEvent): void => {
    this.events++;
    this.out.push({ kind: 'event', event: e, line: this.line });
  };

  private warn = (message: string): void => {
    const key = message.replace(/\d+/g, '#');
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.problem('warn', { line: this.line, severity: 'warning', message });
  };

  /**
   * The line's value: without the history it repeats and with its long `locals` cut (see
   * `PromptReuse` and rlm-python-locals.ts), unless asked for whole lines. A line that fails
   * that way is parsed whole, so its error is the whole line's.
   */
  private parseLine(text: string): unknown {
    if (!this.prompts) return parsePythonJson(text);
    try {
      return this.prompts.parse(shortenLocals(text));
    } catch {
      return parsePythonJson(text);
    }
  }

  private readLine(line: Line): void {
    if (line.text.trim() === '') return;
    this.sawAnything = true;
    this.line = line.no;
    let value: unknown;
    try {
      value = this.parseLine(line.text);
    } catch (err) {
      if (!line.terminated) {
        this.problem('truncated', {
          line: line.no,
          severity: 'warning',
          message: `the last line is cut off (${line.text.length} characters, no newline); everything before it was read`,
        });
      } else {
        this.problem('json', {
          line: line.no,
          severity: 'error',
          message: `not valid JSON (${err instanceof Error ? err.message : String(err)}); line skipped`,
        });
      }
      return;
    }
    if (!isObj(value)) {
      this.problem('shape', { line: line.no, severity: 'error', message: 'not a JSON object; line skipped' });
      return;
    }
    if (value['type'] === 'metadata') {
      if (this.meta) this.problem('meta', { line: line.no, severity: 'warning', message: 'a second metadata line; the first one is kept' });
      else {
        this.meta = readMetadata(value);
        this.stamper.epochMs = parsePyTimestamp(value['timestamp']);
        this.out.push({ kind: 'metadata', metadata: this.meta, line: line.no });
      }
      return;
    }
    // The reference visualizer treats every non-metadata line as an iteration; so do we, but say so.
    if (value['type'] !== 'iteration') {
      this.problem('type', {
        line: line.no,
        severity: 'warning',
        message: `unexpected line type ${JSON.stringify(value['type'])}; read as an iteration`,
      });
    }
    const missing = ['iteration', 'response', 'code_blocks'].filter((k) => !(k in value));
    if (missing.length > 0 || typeof value['iteration'] !== 'number') {
      this.problem('iteration', {
        line: line.no,
        severity: 'error',
        message: `not an iteration entry: missing or invalid ${missing.length > 0 ? missing.map((m) => `\`${m}\``).join(', ') : '`iteration`'}; line skipped`,
      });
      return;
    }
    const entry = readEntry(value);
    if (!this.meta) {
      this.problem('no-meta', {
        line: line.no,
        severity: 'warning',
        message: 'no metadata line before the first iteration; model and limits unknown',
      });
      this.meta = readMetadata({});
    }
    if (!this.root || entry.iteration <= this.lastIteration) {
      // Iteration numbers restart at each completion() of a persistent (multi-turn) RLM.
      this.closeRoot();
      this.turn++;
      const meta = this.meta;
      this.root = new RunWriter(
        {
          runId: asRunId(`${this.prefix}${this.turn}`),
          parentRunId: null,
          depth: 0,
          turn: this.turn,
          model: meta.rootModel,
          limits: limitsOf(meta),
          spawnedBy: null,
          query: null,
          context: null,
          usage: null,
          replies: 0,
          repl: meta.repl,
          prompts: meta.prompts,
        },
        this.stamper,
        this.emit,
        this.warn,
      );
    }
    this.lastIteration = entry.iteration;
    this.root.add(entry, entry.prompt);
  }

  private closeRoot(): void {
    if (!this.root) return;
    this.root.finish();
    this.root = null;
  }
}

export interface RlmPythonReadResult {
  metadata: RlmPythonMetadata | null;
  events: TrajectoryEvent[];
  problems: ReadProblem[];
}

export function readRlmPythonText(text: string): RlmPythonReadResult {
  const reader = new RlmPythonReader();
  const result: RlmPythonReadResult = { metadata: null, events: [], problems: [] };
  for (const item of [...reader.push(text), ...reader.end()]) {
    if (item.kind === 'metadata') result.metadata = item.metadata;
    else if (item.kind === 'event') result.events.push(item.event);
    else result.problems.push(item.problem);
  }
  return result;
}
