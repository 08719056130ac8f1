// One token estimate everywhere: a native log and the same session exported to the reference
// format and read back report the same history sizes.
import { describe, expect, it } from 'vitest';
import { exportRlmPython } from '../../../src-shared/codecs/rlm-python-export.ts';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import { estimateTextTokens, estimateTokens } from '../../../src-shared/tokens.ts';
import { harness, ofType, repl, turns } from './harness.ts';

describe('token estimate', () => {
  it('is characters / 4 rounded up over all messages, as the reference estimates without a tokenizer', () => {
    expect(estimateTokens([{ content: 'abc' }, { content: 'defgh' }])).toBe(2);
    expect(estimateTokens([])).toBe(0);
    expect(estimateTextTokens('x'.repeat(9))).toBe(3);
  });

  it('native and imported logs of the same session report the same history tokens', async () => {
    const h = await harness(
      turns((t) => (t < 3 ? repl(`print("turn ${t}", context.length);`) : repl('answer.content = "done"; answer.ready = true;'))),
    );
    await h.complete('some context '.repeat(50), 'what?');
    const native = ofType(h.events, 'iteration.start').map((e) => e.historyTokens);
    const imported = readRlmPythonText(`${exportRlmPython(h.events).join('\n')}\n`);
    expect(imported.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const reread = ofType(imported.events, 'iteration.start').map((e) => e.historyTokens);
    expect(native).toHaveLength(3);
    expect(reread).toEqual(native);
  });
});
