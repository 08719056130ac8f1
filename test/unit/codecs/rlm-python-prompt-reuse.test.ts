// Iteration lines parsed without parsing again the history they repeat: the events must be
// exactly those of parsing every line whole.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlmPythonReader } from '../../../src-shared/codecs/rlm-python-import.ts';
import { README_COUNTS, REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { rng } from './fuzz.ts';

function readBoth(text: string): { whole: unknown[]; reused: unknown[] } {
  const read = (wholeLines: boolean): unknown[] => {
    const r = new RlmPythonReader({ wholeLines });
    return [...r.push(text), ...r.end()];
  };
  return { whole: read(true), reused: read(false) };
}

const meta = JSON.stringify({
  type: 'metadata',
  timestamp: '2025-01-01T00:00:00.000000',
  root_model: 'm',
  max_depth: 1,
  max_iterations: 40,
});
type Msg = { role: string; content: string };

/** One iteration line as the reference writes it (json.dumps' default separators). */
function line(i: number, prompt: Msg[], answer: string | null = null): string {
  return JSON.stringify(
    {
      type: 'iteration',
      iteration: i,
      timestamp: `2025-01-01T00:00:${String(i).padStart(2, '0')}.000000`,
      prompt,
      response: `step ${i}\n\`\`\`repl\nprint(${i})\n\`\`\``,
      code_blocks: [{ code: `print(${i})`, result: { stdout: `${i}\n`, stderr: '', locals: {}, execution_time: 0.01, rlm_calls: [] } }],
      final_answer: answer,
      iteration_time: 0.5,
    },
    null,
    0,
  )
    .replace(/","/g, '", "')
    .replace(/":/g, '": ')
    .replace(/,"/g, ', "')
    .replace(/\],"/g, '], "');
}

describe('reusing the previous prompt when parsing reference lines', () => {
  it.each(Object.keys(README_COUNTS))('gives the same events for the reference fixture %s', (name) => {
    const text = readFileSync(join(REFERENCE_FIXTURES, `${name}.jsonl`), 'utf8');
    const { whole, reused } = readBoth(text);
    expect(reused).toEqual(whole);
  });

  it('gives the same events for runs whose history grows, is compacted, repeats, restarts or is empty', () => {
    const r = rng(5);
    const text = (n: number): string =>
      Array.from(
        { length: n },
        () => ['a', 'b', ' ', '\n', '"', '\\', 'é', '😀', ']', '}', ',', '"], "response": '][Math.floor(r() * 12)],
      ).join('');
    for (let trial = 0; trial < 30; trial++) {
      const lines = [meta];
      let history: Msg[] = [
        { role: 'system', content: `sys ${text(50)}` },
        { role: 'user', content: text(30) },
      ];
      let i = 1;
      for (let k = 0; k < 12; k++) {
        const roll = r();
        if (roll < 0.1) {
          // Compacted: the history is replaced by a summary.
          history = [history[0] as Msg, { role: 'assistant', content: `summary ${text(20)}` }];
        } else if (roll < 0.15) {
          // A new completion: iteration numbers restart.
          i = 1;
          history = [history[0] as Msg, { role: 'user', content: text(10) }];
        } else if (roll < 0.2) {
          history = [];
        } else if (roll > 0.9) {
          // The same prompt again (a child's aliased final history).
        } else {
          history = [...history, { role: 'assistant', content: text(40) }, { role: 'user', content: text(60) }];
        }
        lines.push(line(i++, history, k === 11 ? 'done' : null));
      }
      const { whole, reused } = readBoth(lines.join('\n') + '\n');
      expect(reused).toEqual(whole);
    }
  });

  it('reports the same problems for broken lines, and recovers after them', () => {
    const h1 = [{ role: 'system', content: 'sys' }];
    const h2 = [...h1, { role: 'user', content: 'q' }];
    const h3 = [...h2, { role: 'assistant', content: 'a' }];
    const good2 = line(2, h2);
    const broken = good2.replace('"q"}]', '"q" ]'); // the new message is cut off
    const lines = [
      meta,
      line(1, h1),
      broken,
      line(2, h2),
      `${line(3, h3).slice(0, -40)}`,
      line(3, h3),
      '  ' + line(4, h3),
      line(5, h3, 'x'),
    ];
    const { whole, reused } = readBoth(lines.join('\n') + '\n');
    expect(reused).toEqual(whole);
    expect(JSON.stringify(whole)).toContain('not valid JSON');
  });
});
