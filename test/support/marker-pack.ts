// A prompt pack whose every text is a unique marker: each slot's text is «slot» followed by
// each of its variables and a marker naming it, so a request shows which slots made it.
import type { ReplLanguage } from '../../src-shared/events.ts';
import { PROMPT_PACK_FORMAT, PROMPT_PACK_VERSION, SLOT_NAMES, SLOT_VARIABLES, type PromptPack } from '../../src-main/lm/prompt-pack.ts';
import { parsePromptPack } from '../../src-main/lm/prompt-pack-schema.ts';

/** One of each: our semantics with the JavaScript REPL, the reference's with Python. */
export function markerPack(language: ReplLanguage): PromptPack {
  const texts = Object.fromEntries(
    SLOT_NAMES.map((s) => [s, `«${s}»${(SLOT_VARIABLES[s] as readonly string[]).map((v) => `{${v}}«${s}.${v}»`).join('')}`]),
  );
  return parsePromptPack(
    {
      format: PROMPT_PACK_FORMAT,
      version: PROMPT_PACK_VERSION,
      name: `markers-${language}`,
      language,
      semantics: language === 'python' ? 'reference' : 'rlm-studio',
      numbers: 'grouped',
      outputCap: 2_000,
      roles: { finalAnswerRequest: language === 'python' ? 'assistant' : 'user' },
      texts,
    },
    'the marker pack',
  );
}
