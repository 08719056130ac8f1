// Parsing an iteration line without parsing again the history its prompt repeats.
import { isObj } from './rlm-python-entries.ts';

/**
 * Parses iteration lines without parsing again the history they repeat. Each line's `prompt`
 * is the whole history sent with that call, so a run of n iterations logs its first messages
 * n times (a long run's file is mostly that, and its parse grows with the square of its
 * length). When a line's prompt array starts with the previous line's array text, followed
 * by a comma, only the messages after it are parsed; the earlier ones are the previous
 * line's values. The result equals `JSON.parse(text)`: the shared text is the same complete
 * values, and any line this cannot split cleanly is parsed whole. (One difference: a line
 * with a second top-level `"prompt": []` key after the first would get the first's value.)
 */
export class PromptReuse {
  private previous: { body: string; values: unknown[] } | null = null;

  parse(text: string): unknown {
    const span = promptSpan(text);
    if (span === null) {
      this.previous = null;
      return JSON.parse(text);
    }
    const body = text.slice(span.open + 1, span.close);
    const prev = this.previous;
    let values: unknown[] | null = null;
    if (prev && prev.body.length > 0 && body.startsWith(prev.body)) {
      if (body.length === prev.body.length) values = prev.values.slice();
      else if (body.charCodeAt(prev.body.length) === 44) {
        const more = tryParse(`[${body.slice(prev.body.length + 1)}]`);
        if (Array.isArray(more)) values = prev.values.concat(more as unknown[]);
      }
    }
    const rest = values === null ? null : tryParse(`${text.slice(0, span.open)}[]${text.slice(span.close + 1)}`);
    if (values === null || !isObj(rest) || !Array.isArray(rest['prompt']) || rest['prompt'].length > 0) {
      const whole: unknown = JSON.parse(text);
      const prompt = isObj(whole) ? whole['prompt'] : null;
      this.previous = Array.isArray(prompt) ? { body, values: prompt as unknown[] } : null;
      return whole;
    }
    rest['prompt'] = values;
    this.previous = { body, values };
    return rest;
  }
}

/**
 * Where the top-level `prompt` array of an iteration line is, as the reference writes it
 * (`{"type": …, "iteration": …, "timestamp": …, "prompt": [ … ], "response": …`): the index
 * of its `[` and of its `]`. Null when the line is not laid out that way.
 */
function promptSpan(text: string): { open: number; close: number } | null {
  const key = text.indexOf('"prompt": [');
  // Top level: only the first keys' plain values before it, nothing nested.
  if (key < 0 || key > 400 || text.lastIndexOf('{', key) !== 0 || text.lastIndexOf('[', key) >= 0) return null;
  const open = key + 10;
  // An unescaped quote is never inside a string, so this is the end of a value at some depth;
  // a wrong one leaves an unbalanced text that fails to parse (then the line is parsed whole).
  const close = text.indexOf('], "response": ', open);
  if (close < 0) return null;
  return { open, close };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
