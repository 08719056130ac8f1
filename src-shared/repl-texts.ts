// The texts the REPL itself returns to the model's code: `SHOW_VARS()`, a sub-call with an empty
// prompt or with arguments of the wrong type, and a sub-call the host could not answer. They are slots of every prompt pack
// (src-main/lm/prompt-pack.ts) handed to the REPL when it is made. Our packs' wording of them is
// here rather than in src-main/lm/our-prompt-packs.ts (which takes it from here) so that a REPL
// made without a pack (re-execution, the sandbox's own tests) says what our pack says: the
// sandbox may not read src-main/lm.
// `showVars`, `showVarsEmpty` and `subcallFailed`/`subcallFailedBatched` keep the reference
// library's wording, the only texts of our packs that do: its logs re-execute (`rerun`) to their
// recorded output only when what the REPL prints is the same, and rerun and counterfactuals tell
// a recorded failed call by that prefix (test/integration/rerun fails with other words).
import type { ReplLanguage } from './events.ts';

export interface ReplTexts {
  /** `SHOW_VARS()` with variables: `{variables}`, the names and type names in the REPL's notation. */
  showVars: string;
  /** `SHOW_VARS()` when there are none. */
  showVarsEmpty: string;
  /** An `llm_query`/`rlm_query` with no prompt: returned without a call. */
  emptyPrompt: string;
  /** A sub-call that failed: `{error}`, why. */
  subcallFailed: string;
  /** The same for one prompt of a batch. */
  subcallFailedBatched: string;
  /**
   * Arguments of the wrong type (`{function}`: the function called, `{type}`: the type it got):
   * a prompt, a batch's prompts, one of them (`{index}`), the model. Python converts a prompt
   * and a model to text and uses only `badPrompts` (for a string or a non-iterable).
   */
  badPrompt: string;
  badPrompts: string;
  badPromptsItem: string;
  badModel: string;
}

export const OUR_REPL_TEXTS: Readonly<Record<ReplLanguage, ReplTexts>> = {
  javascript: {
    showVars: 'Available variables: {variables}',
    showVarsEmpty: 'No variables created yet. Use ```repl``` blocks to create variables.',
    emptyPrompt: 'Error: the prompt is empty (undefined, null or ""); nothing was sent',
    subcallFailed: 'Error: LM query failed - {error}',
    subcallFailedBatched: 'Error: LM query failed - {error}',
    badPrompt: 'Error: {function}() expects prompt to be a string, got {type}',
    badPrompts: 'Error: {function}() expects prompts to be an array of strings, got {type}',
    badPromptsItem: 'Error: {function}() expects prompts to be an array of strings (item {index}), got {type}',
    badModel: 'Error: {function}() expects model to be a string, got {type}',
  },
  python: {
    showVars: 'Available variables: {variables}',
    showVarsEmpty: 'No variables created yet. Use ```repl``` blocks to create variables.',
    emptyPrompt: 'Error: the prompt is empty (None or ""); nothing was sent',
    subcallFailed: 'Error: LM query failed - {error}',
    subcallFailedBatched: 'Error: LM query failed - {error}',
    badPrompt: 'Error: {function}() expects prompt to be a str, got {type}',
    badPrompts: 'Error: prompts must be a list of strings',
    badPromptsItem: 'Error: {function}() expects prompts to be a list of strings (item {index}), got {type}',
    badModel: 'Error: {function}() expects model to be a str, got {type}',
  },
};

/** A REPL text with its variables filled in, in one pass; other braces stay text. */
export function fillReplText(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([a-z][a-z_]*)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole));
}
