// What a live session was started with, written beside its log (never a key) so that a saved
// log can be forked later.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { ContextSource, ReplChoiceInput, RunLimitsInput } from '../../src-shared/protocol.ts';

/** What a live session was started with; written beside its log so a saved log can be forked. */
export const SessionRecipe = z.strictObject({
  version: z.literal(1),
  profile: z.string(),
  model: z.string(),
  subModel: z.string().nullable(),
  context: ContextSource,
  query: z.string().nullable(),
  limits: RunLimitsInput,
  /** Absent in recipes written before Python: JavaScript. */
  repl: ReplChoiceInput.optional(),
  /** The system prompt that replaced the built-in one, if any. */
  systemPrompt: z.string().optional(),
  finalPatterns: z.boolean().optional(),
  /** A custom tools module on the host. */
  tools: z.string().optional(),
  /** The profile of sub-calls, when not the root's. */
  subProfile: z.string().optional(),
  /** Logs on the host shown to the root as worked examples, and their total budget in characters. */
  examples: z.array(z.string()).optional(),
  exampleBudget: z.number().int().positive().optional(),
  /** The prompt pack (one of ours by name, or a file on the host), from the profile. */
  prompts: z.string().optional(),
  /** The root model's context window, from the profile (overrides the model table). */
  contextWindow: z.number().int().positive().optional(),
});
export type SessionRecipe = z.infer<typeof SessionRecipe>;

export function recipePathFor(logFile: string): string {
  return logFile.replace(/\.rlm\.jsonl$/, '') + '.rlm.session.json';
}

/**
 * The recipe written beside a log, if there is one and it reads: one cut short, edited into
 * something else or unreadable counts as none, and the log is then treated as an imported one.
 */
export function readRecipeBeside(logFile: string): SessionRecipe | null {
  const path = recipePathFor(logFile);
  if (!existsSync(path)) return null;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
  const parsed = SessionRecipe.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Writes the recipe beside `logFile` whole or not at all (a temporary file, then a rename). */
export function writeRecipeBeside(logFile: string, recipe: SessionRecipe): void {
  const path = recipePathFor(logFile);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(recipe, null, 2)}\n`);
  renameSync(tmp, path);
}
