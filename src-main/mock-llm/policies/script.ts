// `--script FILE`: scripted replies. Rules are tried in order and the first whose every given
// condition holds supplies the reply; with `"fallback": "scenarios"` unmatched requests go to
// the built-in policy, otherwise they fail with NoRuleMatchedError (the server answers 400).
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { classify } from '../policy.ts';
import type { Policy, PolicyRequest } from '../policy.ts';
import { scenariosPolicy } from './scenarios.ts';

const regexSource = z.string().min(1, 'must not be empty');

const RuleSchema = z.strictObject({
  match: z
    .strictObject({
      lastUser: regexSource.optional(),
      system: regexSource.optional(),
      anyUser: regexSource.optional(),
      model: z.string().optional(),
      turn: z.number().int().positive().optional(),
      kind: z.enum(['rlm', 'sub', 'final', 'compaction']).optional(),
    })
    .default({}),
  reply: z.string(),
});

const ScriptSchema = z.strictObject({
  rules: z.array(RuleSchema),
  fallback: z.literal('scenarios').optional(),
});

export type Script = z.infer<typeof ScriptSchema>;

export class ScriptError extends Error {
  override name = 'ScriptError';
}

export class NoRuleMatchedError extends Error {
  override name = 'NoRuleMatchedError';
}

interface CompiledRule {
  lastUser: RegExp | null;
  system: RegExp | null;
  anyUser: RegExp | null;
  model: string | null;
  turn: number | null;
  kind: string | null;
  reply: string;
}

/** Validates a parsed script; `source` names it in error messages. Throws ScriptError. */
export function parseScript(value: unknown, source = 'script'): Script {
  const res = ScriptSchema.safeParse(value);
  if (!res.success) {
    const problems = res.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(top level)'}: ${i.message}`);
    throw new ScriptError(`invalid mock-llm script ${source}: ${problems.join('; ')}`);
  }
  return res.data;
}

/** Reads, parses and validates a script file. Throws ScriptError naming the file and the problem. */
export async function loadScript(file: string): Promise<Script> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ScriptError(`cannot read mock-llm script ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ScriptError(`mock-llm script ${file} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseScript(value, file);
}

/** A Policy from a validated script. Throws ScriptError for a bad regular expression. */
export function scriptPolicy(script: Script, fallback: Policy = scenariosPolicy): Policy {
  const rules = script.rules.map((r, i): CompiledRule => {
    const re = (field: string, src: string | undefined): RegExp | null => {
      if (src === undefined) return null;
      try {
        return new RegExp(src, 'm');
      } catch (err) {
        throw new ScriptError(
          `invalid mock-llm script: rules.${i}.match.${field} is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    };
    return {
      lastUser: re('lastUser', r.match.lastUser),
      system: re('system', r.match.system),
      anyUser: re('anyUser', r.match.anyUser),
      model: r.match.model ?? null,
      turn: r.match.turn ?? null,
      kind: r.match.kind ?? null,
      reply: r.reply,
    };
  });
  const useFallback = script.fallback === 'scenarios';
  return (req: PolicyRequest): string => {
    const c = classify(req);
    const systemText = req.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    const userTexts = req.messages.filter((m) => m.role === 'user').map((m) => m.content);
    for (const r of rules) {
      if (r.kind !== null && r.kind !== c.kind) continue;
      if (r.model !== null && r.model !== req.model) continue;
      if (r.turn !== null && r.turn !== c.turn) continue;
      if (r.lastUser && !r.lastUser.test(c.lastUser)) continue;
      if (r.system && !r.system.test(systemText)) continue;
      if (r.anyUser && !userTexts.some((t) => r.anyUser!.test(t))) continue;
      return r.reply;
    }
    if (useFallback) return fallback(req);
    throw new NoRuleMatchedError(
      `no mock-llm script rule matched this request (kind ${c.kind}${c.turn !== null ? `, turn ${c.turn}` : ''}, model ${req.model}); add a rule or "fallback": "scenarios"`,
    );
  };
}

/** loadScript + scriptPolicy. */
export async function loadScriptPolicy(file: string): Promise<Policy> {
  const script = await loadScript(file);
  try {
    return scriptPolicy(script);
  } catch (err) {
    if (err instanceof ScriptError)
      throw new ScriptError(err.message.replace('invalid mock-llm script', `invalid mock-llm script ${file}`));
    throw err;
  }
}
