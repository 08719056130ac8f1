// Policy for the S-NIAH eval task (src-main/eval/tasks/sniah.ts): inspect; search for the
// key's passcode with a regular expression and have a sub-LM confirm the window around the
// hit (a batched sub-LM scan when the regex finds nothing); submit. 3 root calls + 1 sub call.
import { hasTag, lastTag, type Classified } from '../policy.ts';
import { inspectCode, js, replWith, TEXT_EXPR } from './code.ts';
import { inspectCodePy, submitPy } from './code-py.ts';
import { sniahSearchPy } from './eval-py.ts';

function sniahKey(query: string): string | null {
  return /passcode for the (\S+) vault/i.exec(query)?.[1] ?? null;
}

export function sniahTurn(c: Classified): string {
  const python = c.language === 'python';
  const candidate = lastTag(c, 'sniah', 'candidate');
  if (candidate !== null) {
    return /^\d+$/.test(candidate)
      ? replWith(
          `The passcode next to the key is ${candidate}, and the sub-LM read the same number; submitting it.`,
          python ? submitPy(candidate) : `answer.content = ${js(candidate)};\nanswer.ready = true;`,
        )
      : replWith(
          'Neither the search nor the scan found the passcode; I will say so.',
          python ? submitPy('not found') : `answer.content = 'not found';\nanswer.ready = true;`,
        );
  }
  if (!hasTag(c, 'sniah', 'inspect')) {
    return replWith(
      'Let me look at the context first: its type, size and two short samples.',
      python ? inspectCodePy('sniah') : inspectCode('sniah'),
    );
  }
  const key = sniahKey(c.query ?? '') ?? '';
  const phrase = `passcode for the ${key} vault`;
  return replWith(
    `The text is long and the answer should follow the phrase "${phrase}". I will find it with a regular expression and have a sub-LM read a window around the hit to confirm.`,
    python
      ? sniahSearchPy(phrase)
      : String.raw`
const hay = ${TEXT_EXPR};
const phrase = ${js(phrase)};
const esc = phrase.replace(/[.*+?^${'$'}{}()|[\]\\]/g, '\\$&');
const hits = [...hay.matchAll(new RegExp(esc + '\\D{0,20}?(\\d+)', 'gi'))].slice(0, 5).map((m) => ({ at: m.index, value: m[1] }));
print('regex hits:', hits.length, JSON.stringify(hits));
let candidate = 'NONE';
const ask = (text) => 'TASK: find-number\nKEY: ' + phrase + '\nReply with the number only, or NONE.\nTEXT:\n' + text;
if (hits.length > 0) {
  const read = String(await llm_query(ask(hay.slice(Math.max(0, hits[0].at - 300), hits[0].at + 300)))).trim();
  print('sub-LM reading:', read);
  candidate = /^\d+$/.test(read) ? read : hits[0].value;
} else {
  const pieces = [];
  for (let i = 0; i < hay.length; i += 400000) pieces.push(hay.slice(i, i + 400000));
  const reads = await llm_query_batched(pieces.map(ask));
  candidate = reads.map((r) => String(r).trim()).find((r) => /^\d+$/.test(r)) ?? 'NONE';
}
print('[sniah:candidate]', candidate);
`,
  );
}
