// `--prompts PACK.json` (run, chat, eval, mock-llm): the pack, with its problems as usage errors.
import { PromptPackError, type PromptPack } from '../lm/prompt-pack.ts';
import { loadPromptPack } from '../lm/prompt-pack-schema.ts';
import { UsageError } from './errors.ts';

export async function loadPromptsOption(path: string | undefined): Promise<PromptPack | undefined> {
  if (path === undefined) return undefined;
  try {
    return await loadPromptPack(path);
  } catch (err) {
    if (err instanceof PromptPackError) throw new UsageError(`--prompts: ${err.message}`);
    throw err;
  }
}
