// What both REPLs do when the code calls out: sub-calls go to the bridge, tools to the REPL's
// own tool caller, and every answer is a string the code can use (batches as JSON lists).
import { fillReplText, type ReplTexts } from '../../src-shared/repl-texts.ts';
import type { CallSite, SubcallBridge } from './types.ts';

/** Calls a tool from its JSON-encoded arguments; answers `{ok}` or `{err: {name, message}}` as JSON. */
export type ToolCaller = (name: string, payload: string) => Promise<string>;

export async function dispatchHostCall(
  bridge: SubcallBridge,
  callTool: ToolCaller,
  kind: string,
  a: string,
  b: string,
  site: CallSite,
  texts: ReplTexts,
): Promise<string> {
  const model = b === '' ? undefined : b;
  try {
    switch (kind) {
      case 'llm':
        return String(await bridge.llmQuery(a, model, site));
      case 'rlm':
        return String(await bridge.rlmQuery(a, model, site));
      case 'llm_batched':
      case 'rlm_batched': {
        const prompts = JSON.parse(a) as string[];
        const results =
          kind === 'llm_batched' ? await bridge.llmQueryBatched(prompts, model, site) : await bridge.rlmQueryBatched(prompts, model, site);
        const list = Array.isArray(results) ? results : [];
        const missing = fillReplText(texts.subcallFailedBatched, { error: 'no result for this prompt' });
        return JSON.stringify(prompts.map((_, i) => (i < list.length ? String(list[i]) : missing)));
      }
      case 'tool':
        return await callTool(a, b);
      default:
        return `Error: unknown host call ${kind}`;
    }
  } catch (err) {
    // The bridge promises never to reject; if it does, the code still gets a string.
    const batched = kind.endsWith('batched');
    const message = fillReplText(batched ? texts.subcallFailedBatched : texts.subcallFailed, { error: errorMessage(err) });
    return batched ? JSON.stringify((JSON.parse(a) as string[]).map(() => message)) : message;
  }
}

/** A tool's failure as the code sees it. */
export function toolError(err: unknown): string {
  const name = err instanceof Error && err.name ? err.name : 'Error';
  return JSON.stringify({ err: { name, message: errorMessage(err) } });
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
