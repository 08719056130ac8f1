// The schema of a prompt pack file, and loading one: kept apart from prompt-pack.ts so that a
// run on our own packs loads zod only when something needs it (a pack file, the queue's wire).
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { schemaProblems } from '../../src-shared/schema-problems.ts';
import { OUR_PACKS } from './our-prompt-packs.ts';
import { PROMPT_PACK_FORMAT, PROMPT_PACK_VERSION, PromptPackError, SLOT_NAMES, type PromptPack, type SlotName } from './prompt-pack.ts';

const Texts = z.strictObject(Object.fromEntries(SLOT_NAMES.map((s) => [s, z.string()])) as Record<SlotName, z.ZodString>);

export const PromptPackSchema = z.strictObject({
  format: z.literal(PROMPT_PACK_FORMAT),
  version: z.literal(PROMPT_PACK_VERSION),
  name: z.string().min(1),
  description: z.string().optional(),
  /** Where the texts came from (for an imported pack: the library, its version and path). */
  source: z.string().optional(),
  /** The REPL language its texts teach; a run in another language is refused. */
  language: z.enum(['javascript', 'python']),
  /**
   * 'reference': context lengths, fence parsing and custom system prompts as the reference
   * library does them; 'rlm-studio': ours (docs/prompt-packs.md lists each).
   */
  semantics: z.enum(['rlm-studio', 'reference']),
  /** How numbers are written into texts: 'grouped' 384,000; 'plain' 384000. */
  numbers: z.enum(['grouped', 'plain']),
  /** Characters of one block's formatted output kept before `truncated`. */
  outputCap: z.number().int().positive(),
  /** The role of messages whose role differs between packs. */
  roles: z.strictObject({ finalAnswerRequest: z.enum(['user', 'assistant']) }),
  texts: Texts,
}) satisfies z.ZodType<PromptPack>;

/** Checks a parsed JSON value as a pack; the error names the source and every problem. */
export function parsePromptPack(value: unknown, source: string): PromptPack {
  const r = PromptPackSchema.safeParse(value);
  if (!r.success) throw new PromptPackError(`${source} is not a prompt pack: ${schemaProblems(r.error).join('; ')}`);
  return r.data;
}

/** One of our packs by name (`rlm-studio-javascript`, `rlm-studio-python`), else the pack file at `arg`. */
export async function resolvePromptPack(arg: string): Promise<PromptPack> {
  const ours = Object.values(OUR_PACKS).find((p) => p.name === arg);
  return ours ?? loadPromptPack(arg);
}

export async function loadPromptPack(path: string): Promise<PromptPack> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new PromptPackError(`cannot read the prompt pack ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new PromptPackError(`${path} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parsePromptPack(json, path);
}
