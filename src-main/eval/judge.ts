// A model as judge (`score DIR --judge-model M --judge-prompt FILE`): the prompt file's
// {question}, {answer} and {expected} filled in for each session, sent as one direct call (no
// REPL) and recorded in a native log like any model call, cost included; the reply ends with
// a line `VERDICT: CORRECT` or `VERDICT: INCORRECT`, the rest is its reasoning.
import { join, relative } from 'node:path';
import { recordedCall, type LmClient } from './recorded-call.ts';
import type { JudgeRecord } from './scores.ts';
import type { ScorerInput } from './scorer-module.ts';
import type { Score } from './tasks/scorers.ts';

type Placeholder = '{question}' | '{answer}' | '{expected}';

export class JudgePromptError extends Error {
  override name = 'JudgePromptError';
}

/** Refuses a prompt that would not show the judge the answer. */
export function checkJudgePrompt(template: string, file: string): void {
  if (!template.includes('{answer}'))
    throw new JudgePromptError(
      `--judge-prompt ${file}: the prompt never shows the answer; put {answer} where it goes (also {question}, {expected})`,
    );
}

export function fillJudgePrompt(template: string, input: ScorerInput): string {
  const expected = Array.isArray(input.expected) ? input.expected.join('\n') : String(input.expected);
  const values: Record<Placeholder, string> = {
    '{question}': input.task.query ?? '(the question is not known: the dataset is not at hand)',
    '{answer}': input.answer ?? '(no answer)',
    '{expected}': expected,
  };
  // One pass, so an answer containing "{expected}" is not filled in again.
  return template.replace(/\{question\}|\{answer\}|\{expected\}/g, (m) => values[m as Placeholder]);
}

/** The verdict of a reply: its last `VERDICT: …` line; the reasoning is the rest. */
export function readVerdict(reply: string): { verdict: 'correct' | 'incorrect' | null; reasoning: string } {
  const re = /^\W*verdict\W*:?\s*\**\s*(correct|incorrect)\b.*$/gim;
  let last: RegExpExecArray | null = null;
  for (let m = re.exec(reply); m !== null; m = re.exec(reply)) last = m;
  if (!last) return { verdict: null, reasoning: reply.trim() };
  const reasoning = (reply.slice(0, last.index) + reply.slice(last.index + last[0].length)).trim();
  return { verdict: (last[1] as string).toLowerCase() as 'correct' | 'incorrect', reasoning };
}

export interface JudgeOptions {
  client: LmClient;
  model: string;
  template: string;
  /** The evaluation folder: logs go to DIR/judge/<scorer>/. */
  dir: string;
  scorer: string;
}

/** Judges one session; the call's log is written whether or not it succeeded. */
export async function judgeSession(o: JudgeOptions, input: ScorerInput, key: string): Promise<Score & { judge: JudgeRecord }> {
  const call = await recordedCall(
    { client: o.client, model: o.model, logDir: join(o.dir, 'judge', o.scorer), key, runPrefix: 'judge' },
    fillJudgePrompt(o.template, input),
  );
  const logFile = relative(o.dir, call.logPath);
  const costUsd = call.costUsd;
  if (call.answer === null) {
    const why = call.why;
    return {
      score: 0,
      correct: false,
      detail: `judge call failed: ${why}`,
      judge: { model: o.model, verdict: null, reasoning: why, logFile, costUsd },
    };
  }
  const { verdict, reasoning } = readVerdict(call.answer);
  return {
    score: verdict === 'correct' ? 1 : 0,
    correct: verdict === 'correct',
    detail: verdict === null ? 'the judge gave no verdict (no "VERDICT: CORRECT|INCORRECT" line)' : `judged ${verdict} by ${o.model}`,
    judge: { model: o.model, verdict, reasoning, logFile, costUsd },
  };
}
