// Sub-LM answers for the prompts the eval-task policies write: `label-questions` (a perfect
// labeller: the inverse of the generator's templates) and `extract-fact` (reads the one
// sentence of a document that answers the question). Null for any other prompt.
import { labelQuestion } from '../../eval/tasks/questions.ts';
import { parseTaskPrompt } from './sub-lm.ts';

export function evalSubLmReply(prompt: string): string | null {
  const t = parseTaskPrompt(prompt);
  if (t === null) return null;
  switch (t.task) {
    case 'label-questions': {
      const out: Record<string, string> = {};
      for (const line of t.body.split('\n')) {
        const m = /^\s*(\d+): (.*)$/.exec(line);
        if (m) out[m[1]!] = labelQuestion(m[2]!) ?? 'unknown';
      }
      return JSON.stringify(out);
    }
    case 'extract-fact':
      return extractFact(t.fields['QUESTION'] ?? '', t.body) ?? 'NONE';
    default:
      return null;
  }
}

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function extractFact(question: string, text: string): string | null {
  let m: RegExpExecArray | null;
  let re: RegExp | null = null;
  if ((m = /manufactures "([^"]+)"/.exec(question))) re = new RegExp(`${esc(m[1]!)} is an? [^.\\n]*? manufactured by ([^.\\n]+)\\.`);
  else if ((m = /acquired "([^"]+)"/.exec(question))) re = new RegExp(`${esc(m[1]!)} was acquired by ([^.\\n]+)\\.`);
  else if ((m = /is "([^"]+)" headquartered/.exec(question))) re = new RegExp(`${esc(m[1]!)} is headquartered in ([^.\\n]+)\\.`);
  if (re === null) return null;
  return re.exec(text)?.[1]?.trim() ?? null;
}
