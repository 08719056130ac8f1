// Test doubles for the sandbox: a SubcallBridge that answers after a delay and records calls.
import type { CallSite, Repl, SubcallBridge } from '../../../src-main/sandbox/types.ts';

export interface RecordedCall {
  kind: 'llm' | 'llm_batched' | 'rlm' | 'rlm_batched';
  prompts: string[];
  model: string | undefined;
  site: CallSite;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers `<kind>:<prompt>`; batched items resolve in reverse order to prove ordering. */
export function fakeBridge(delayMs = 0): SubcallBridge & { calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const one = async (kind: 'llm' | 'rlm', prompt: string): Promise<string> => {
    await sleep(delayMs);
    return `${kind}:${prompt}`;
  };
  const many = (kind: 'llm' | 'rlm', prompts: string[]): Promise<string[]> =>
    Promise.all(
      prompts.map(async (p, i) => {
        await sleep(delayMs + (prompts.length - i) * 5);
        return `${kind}:${p}`;
      }),
    );
  return {
    calls,
    llmQuery(prompt, model, site) {
      calls.push({ kind: 'llm', prompts: [prompt], model, site });
      return one('llm', prompt);
    },
    llmQueryBatched(prompts, model, site) {
      calls.push({ kind: 'llm_batched', prompts, model, site });
      return many('llm', prompts);
    },
    rlmQuery(prompt, model, site) {
      calls.push({ kind: 'rlm', prompts: [prompt], model, site });
      return one('rlm', prompt);
    },
    rlmQueryBatched(prompts, model, site) {
      calls.push({ kind: 'rlm_batched', prompts, model, site });
      return many('rlm', prompts);
    },
  };
}

export const SITE: CallSite = { iteration: 1, block: 1 };

/** What a block printed (stdout, then stderr), and its error as `!Name: message` after it. */
export async function printedBy(repl: Repl, code: string): Promise<string> {
  const r = await repl.execute(code, SITE);
  return r.error ? `${r.stdout}${r.stderr}!${r.error.name}: ${r.error.message}` : `${r.stdout}${r.stderr}`;
}
