// The recipe beside a saved log: what a fork of it starts from. One that does not read counts as none.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecipeBeside, recipePathFor, writeRecipeBeside, type SessionRecipe } from '../../../src-main/host/session-recipe.ts';

const RECIPE: SessionRecipe = {
  version: 1,
  profile: 'demo',
  model: 'm',
  subModel: null,
  context: { kind: 'text', text: 'the context' },
  query: 'what?',
  limits: {},
};

function logFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'rlm-recipe-')), 'session.rlm.jsonl');
}

describe('the recipe beside a log', () => {
  it('is written whole and read back', () => {
    const log = logFile();
    writeRecipeBeside(log, RECIPE);
    expect(readdirSync(join(log, '..'))).toEqual(['session.rlm.session.json']);
    expect(readRecipeBeside(log)).toEqual(RECIPE);
  });

  it.each([
    ['missing', null],
    ['cut off', '{"version": 1, "profile": "de'],
    ['empty', ''],
    ['not a recipe', '{"version": 2}'],
    ['null', 'null'],
  ])('counts as none when it is %s', (_what, text) => {
    const log = logFile();
    if (text !== null) writeFileSync(recipePathFor(log), text);
    expect(readRecipeBeside(log)).toBeNull();
  });
});
