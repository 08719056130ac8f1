// The reference library's logs record the messages each root iteration sent: the requests
// rebuilt from an imported log must be exactly those, so training data exported from a
// reference log shows the model what it saw.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src-shared/events.ts';
import { type ModelCall, ModelCallFolder } from '../../../src-shared/trajectory/model-calls.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { README_COUNTS, REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

function recordedPrompts(path: string): { prompt: ChatMessage[]; response: string }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type?: string; prompt?: ChatMessage[] | string; response?: string })
    .filter((d) => d.type === 'iteration')
    .map((d) => ({
      prompt: typeof d.prompt === 'string' ? [{ role: 'user' as const, content: d.prompt }] : (d.prompt ?? []),
      response: d.response ?? '',
    }));
}

describe('model calls of reference logs', () => {
  for (const name of Object.keys(README_COUNTS)) {
    it(`${name}: each root turn's request is the prompt the reference recorded`, async () => {
      const path = join(REFERENCE_FIXTURES, `${name}.jsonl`);
      const { events } = await readLogFile(path);
      const calls: ModelCall[] = [];
      const folder = new ModelCallFolder({ call: (c) => calls.push(c) });
      for (const e of events) folder.push(e);
      const rootTurns = calls
        .filter((c) => c.depth === 0 && c.purpose === 'turn')
        .map((c) => ({ prompt: c.messages.map(({ role, content }) => ({ role, content })), response: c.reply }));
      const recorded = recordedPrompts(path).map((r) => ({
        prompt: r.prompt.map(({ role, content }) => ({ role, content })),
        response: r.response,
      }));
      expect(rootTurns.length).toBeGreaterThan(0);
      expect(rootTurns).toEqual(recorded.slice(0, rootTurns.length));
    });
  }
});
