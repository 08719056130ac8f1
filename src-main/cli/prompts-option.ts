// `--prompts PACK.json` (run, chat, eval, mock-llm): the pack, with its problems as usage errors.
import { PromptPackError, type PromptPack } from '../lm/prompt-pack.ts';
import { UsageError } from './errors.ts';

export async function loadPromptsOption(path: string | undefined): Promise<PromptPack | undefined> {
  if (path === undefined) return undefined;
  // Imported only when a pack file is given: its schema brings zod, which a plain run never loads
  // before its first request.
  const { loadPromptPack } = await import('../lm/prompt-pack-schema.ts');
  try {
    return await loadPromptPack(path);
  } catch (err) {
    if (err instanceof PromptPackError) throw new UsageError(`--prompts: ${err.message}`);
    throw err;
  }
}
