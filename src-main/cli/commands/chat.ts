// `rlm-studio chat`: a persistent multi-turn session. Questions come from stdin, one per line;
// every turn runs in the same REPL, which gains `context_N` (the turn's context) and, after
// the turn, `history_N` (its messages), as the reference library's `persistent=True` does.
// One log holds every turn.
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { RunOutcome } from '../../engine/index.ts';
import { keepReplsOutOfProcess } from '../../engine/conversation.ts';
import type { SandboxValue } from '../../sandbox/types.ts';
import { textFor } from '../terminal-text.ts';
import { liveProgressWriter } from '../progress.ts';
import { checkReplChoice } from '../cpython-check.ts';
import {
  addConversationOptions,
  loadContextFile,
  openCliSession,
  replSandboxFor,
  type RunCliOptions,
  type RunSummary,
  summaryOf,
} from './run.ts';

export interface ChatCliOptions extends Omit<RunCliOptions, 'context' | 'query'> {
  /** The first turn's context file. */
  context?: string;
}

/** One line of input: a question, or a command starting with `:`. */
export type ChatLine =
  | { kind: 'question'; text: string }
  | { kind: 'context'; path: string }
  | { kind: 'help' }
  | { kind: 'quit' }
  | { kind: 'empty' }
  | { kind: 'bad'; message: string };

export const CHAT_HELP = `One question per line; each is a turn of the same session (one REPL, one log).
  :context FILE   the next question's context is FILE (.json is parsed, anything else is text);
                  a question without one gets its own text as its context, as the reference's
                  completion(prompt) does. Turn N's context is context_N in the REPL (context
                  is context_0); after turn N its messages are history_N.
  :help           this text
  :quit           end the session (so does end of input, Ctrl-D)
  ::TEXT          a question that starts with a colon (:TEXT)
Ctrl-C during a turn cancels that turn and keeps the session; Ctrl-C between turns ends it.`;

/** A line of `chat` input. A question may start with `::` to begin with a colon. */
export function parseChatLine(raw: string): ChatLine {
  const line = raw.trim();
  if (line === '') return { kind: 'empty' };
  if (line.startsWith('::')) return { kind: 'question', text: line.slice(1) };
  if (!line.startsWith(':')) return { kind: 'question', text: line };
  const [word = '', ...rest] = line.slice(1).split(/\s+/);
  const arg = rest.join(' ');
  switch (word) {
    case 'help':
    case 'h':
      return { kind: 'help' };
    case 'quit':
    case 'q':
    case 'exit':
      return { kind: 'quit' };
    case 'context':
    case 'c':
      return arg === '' ? { kind: 'bad', message: ':context needs a file: :context FILE' } : { kind: 'context', path: arg };
    default:
      return { kind: 'bad', message: `unknown command :${word} (:help lists them)` };
  }
}

/** What `chat --json` prints for each turn. */
export interface ChatTurnSummary extends RunSummary {
  turn: number;
  query: string;
  /** The file given as this turn's context; null: the question itself was the context. */
  contextFile: string | null;
}

/** Answers the questions read from `input` in one persistent session; resolves when input ends. */
export async function chat(o: ChatCliOptions): Promise<void> {
  await checkReplChoice(o);
  // As run's (replSandboxFor); the sandbox process reads each context file itself rather than
  // have it copied through the channel.
  const sandbox = await replSandboxFor(o);
  const load = async (path: string): Promise<{ value: SandboxValue; path: string }> => {
    const value = await loadContextFile(path, o.repl);
    sandbox?.shareContextFile(resolve(path), value, o.repl === 'python');
    return { value, path };
  };
  let next: { value: SandboxValue; path: string } | null = o.context === undefined ? null : await load(o.context);
  // As run's: while a reply streams, how far it has come (on a terminal, one line rewritten).
  const progress = o.json ? null : liveProgressWriter(process.stderr);
  const err = (line: string): void => (progress ? progress.line(line) : void process.stderr.write(`${line}\n`));
  const cli = await openCliSession(o, o.json ? null : err, true, progress ? { delta: (d) => progress.live(d) } : null);
  const interactive = process.stdin.isTTY === true;
  const rl = createInterface({
    input: process.stdin,
    ...(interactive ? { output: process.stderr, terminal: true } : { terminal: false }),
    prompt: 'chat> ',
  });
  let current: AbortController | null = null;
  let turn = 0;
  let failed = false;
  // Ctrl-C: cancels the turn in progress, or ends the session between turns. A terminal
  // in raw mode delivers it to readline, a pipe or `kill -INT` to the process.
  const interrupt = (): void => {
    if (current !== null) {
      err(`cancelling turn ${turn}…`);
      current.abort();
    } else rl.close();
  };
  const terminate = (): void => {
    current?.abort();
    rl.close();
  };
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', terminate);
  if (interactive) err('RLM chat: every question is a turn of one session with one REPL. :help for commands, Ctrl-D to end.');
  try {
    if (interactive) rl.prompt();
    for await (const raw of rl) {
      const line = parseChatLine(raw);
      if (line.kind === 'quit') break;
      if (line.kind === 'help') err(CHAT_HELP);
      else if (line.kind === 'bad') err(line.message);
      else if (line.kind === 'context') {
        try {
          next = await load(line.path);
          err(`the next question's context: ${line.path}`);
        } catch (e) {
          err(`:context ${line.path}: ${(e as Error).message}`);
        }
      } else if (line.kind === 'question') {
        const context = next;
        next = null;
        const controller = new AbortController();
        current = controller;
        let outcome: RunOutcome | null = null;
        const retriedBefore = cli.retries();
        try {
          outcome = await cli.session.completion(context?.value ?? line.text, line.text, { signal: controller.signal });
        } catch (e) {
          failed = true;
          err(`turn ${turn} failed: ${(e as Error).message}`);
        } finally {
          current = null;
        }
        if (outcome !== null) {
          const summary: ChatTurnSummary = {
            turn,
            query: line.text,
            contextFile: context?.path ?? null,
            ...summaryOf(outcome, cli.log?.path ?? null, cli.retries() - retriedBefore, cli.sandbox()),
          };
          if (summary.stopReason === 'error') failed = true;
          if (o.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
          else {
            if (summary.stopReason !== 'answered')
              err(`stopped: ${summary.stopReason}${summary.message ? ` (${textFor(process.stderr, summary.message)})` : ''}`);
            // As `run`: what the model wrote reaches a terminal without its control sequences.
            process.stdout.write(`${textFor(process.stdout, summary.answer ?? '')}\n`);
          }
        }
        turn++;
      }
      if (interactive) rl.prompt();
    }
    if (next !== null) err(`:context ${next.path} was given but no question followed; it was not used`);
  } finally {
    rl.close();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', terminate);
    cli.close();
    if (cli.log && !o.json) err(`log: ${cli.log.path}`);
  }
  process.exitCode = failed ? 1 : 0;
}

export function registerChat(program: Command): void {
  addConversationOptions(
    program
      .command('chat')
      .description('A multi-turn session: questions from stdin, one per line, all in one REPL and one log (:help lists the commands).')
      .option('--context <file>', "the first question's context: .json is parsed, anything else is read as text"),
  )
    .option('--json', 'print one JSON object per turn')
    .addHelpText('after', `\n${CHAT_HELP}`)
    .action((o: ChatCliOptions) => {
      // The API key is in this process's environment: the model's code runs in the sandbox process.
      keepReplsOutOfProcess();
      return chat(o);
    });
}
