// `prompts import-reference`: a prompt pack read from the user's own copy of the reference
// library, by running its Python (reference-probe.ts). No text of the reference is stored in
// this repository: every text of the pack comes from that run. The pack is checked before it
// is written: the library's own builders, given real values, must produce exactly what our
// engine builds from the pack for the same values.
import { execFile } from 'node:child_process';
import { z } from 'zod';
import { describeContext } from '../../engine/context-meta.ts';
import {
  buildMetadataMessage,
  buildReplOutputMessage,
  buildSystemPrompt,
  buildTurnPrompt,
  compactionNote,
  defaultToolDescription,
  type BlockOutput,
} from '../../engine/prompts.ts';
import { subLmBudgets } from '../../engine/sub-lm-budgets.ts';
import { OUR_PACKS } from '../../lm/our-prompt-packs.ts';
import { parsePromptPack } from '../../lm/prompt-pack-schema.ts';
import { fill, PROMPT_PACK_FORMAT, PROMPT_PACK_VERSION, SLOT_NAMES, type PromptPack, type SlotName } from '../../lm/prompt-pack.ts';
import { REFERENCE_PROBE_PY } from './reference-probe.ts';

export class ReferenceImportError extends Error {
  override name = 'ReferenceImportError';
}

/**
 * Slots the reference has no text for: ours. It never restarts a REPL, nor says a reply was cut;
 * a sub-call naming a model it does not know goes to its default client, and one given arguments
 * of the wrong type passes them on (a string as a batch of its characters); its texts for a stopped
 * or failed child run and for a spent budget or time carry its own exception messages and number
 * formats, which our runs do not have.
 */
const OURS_WHERE_NONE: readonly SlotName[] = [
  'replReset',
  'replLost',
  'replyCut',
  'unknownModel',
  'subcallStopped',
  'childFailed',
  'childStopped',
  'childStoppedPartial',
  'childBudgetExhausted',
  'childTimeExhausted',
  'badPrompt',
  'badPrompts',
  'badPromptsItem',
  'badModel',
];
/**
 * Read from the library's REPL where it has them, else ours: paper-era FINAL_VAR's texts, and what
 * SHOW_VARS() and a sub-call with an empty prompt or that failed return to the code.
 */
const OURS_WHEN_MISSING: readonly SlotName[] = [
  'finalVarNotFound',
  'finalVarNoVariables',
  'showVars',
  'showVarsEmpty',
  'emptyPrompt',
  'subcallFailed',
  'subcallFailedBatched',
];

const ProbeOutput = z.object({
  texts: z.record(z.string(), z.string()),
  finalAnswerRole: z.enum(['user', 'assistant']),
  outputCap: z.number().int().positive(),
  version: z.string().nullable(),
  path: z.string(),
  python: z.string(),
  samples: z.record(z.string(), z.string()),
});
type ProbeOutput = z.infer<typeof ProbeOutput>;

export interface ImportOptions {
  /** The Python to run (default python3). */
  python?: string;
  /** A checkout of the reference library, put first on Python's import path. */
  from?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ImportResult {
  pack: PromptPack;
  /** Samples checked against the pack (every one must be identical for the import to succeed). */
  checked: number;
}

function runProbe(o: ImportOptions): Promise<ProbeOutput> {
  const python = o.python ?? 'python3';
  return new Promise((resolve, reject) => {
    execFile(
      python,
      ['-c', REFERENCE_PROBE_PY, o.from ?? ''],
      { env: o.env ?? process.env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT')
            return reject(new ReferenceImportError(`cannot run Python: ${python} was not found (name one with --python)`));
          const last = stderr.trim().split('\n').at(-1) ?? String(err);
          if (/^(ModuleNotFoundError|ImportError)\b/.test(last)) {
            return reject(
              new ReferenceImportError(
                `${python} cannot import the reference library: ${last}. Pass --from DIR (a checkout of alexzhang13/rlm), or install it and its requirements for this Python`,
              ),
            );
          }
          if (/ProbeError/.test(last)) {
            return reject(
              new ReferenceImportError(
                `the reference library builds its prompts in a way this importer does not know: ${last.replace(/^.*ProbeError: /, '')}`,
              ),
            );
          }
          return reject(new ReferenceImportError(`reading the reference library failed: ${last}`));
        }
        let json: unknown;
        try {
          json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
        } catch {
          return reject(new ReferenceImportError(`reading the reference library printed no result (stdout: ${stdout.slice(0, 200)})`));
        }
        const parsed = ProbeOutput.safeParse(json);
        if (!parsed.success)
          return reject(new ReferenceImportError(`reading the reference library gave an unexpected result: ${parsed.error.message}`));
        resolve(parsed.data);
      },
    );
  });
}

function packFrom(probe: ProbeOutput): PromptPack {
  const ours = OUR_PACKS.python.texts;
  const oursIn = [...OURS_WHERE_NONE, ...OURS_WHEN_MISSING.filter((s) => probe.texts[s] === undefined)];
  const texts = Object.fromEntries(SLOT_NAMES.map((s) => [s, oursIn.includes(s) ? ours[s] : probe.texts[s]]));
  const missing = SLOT_NAMES.filter((s) => texts[s] === undefined);
  if (missing.length > 0) throw new ReferenceImportError(`reading the reference library gave no text for: ${missing.join(', ')}`);
  const version = probe.version ?? 'unknown';
  return parsePromptPack(
    {
      format: PROMPT_PACK_FORMAT,
      version: PROMPT_PACK_VERSION,
      name: `reference-rlm-${version}`,
      description: `The texts of the reference library (alexzhang13/rlm ${version}), imported by rlm-studio prompts import-reference. ${oursIn.join(', ')}: RLM Studio's, as the reference has no such text.`,
      source: `${probe.path} (rlms ${version}, Python ${probe.python})`,
      language: 'python',
      semantics: 'reference',
      numbers: 'plain',
      outputCap: probe.outputCap,
      roles: { finalAnswerRequest: probe.finalAnswerRole },
      texts,
    },
    'the imported pack',
  );
}

const block = (b: Partial<BlockOutput>): BlockOutput => ({ stdout: '', stderr: '', error: null, variables: [], replReset: null, ...b });

/** What our engine builds from the pack for the values the probe gave the library's builders. */
function rendered(pack: PromptPack, cap: number): Record<string, string> {
  const budgets = subLmBudgets(128_000);
  const base = { recursion: true, compaction: false, finalPatterns: false, language: 'python' as const, budgets, pack };
  return {
    systemPlain: buildSystemPrompt({ ...base, tools: [] }),
    systemTools: buildSystemPrompt({
      ...base,
      tools: [
        { name: 'lookup', description: 'finds a record' },
        { name: 'limit', description: defaultToolDescription(3, 'python', pack) },
      ],
    }),
    metadataQuery: buildMetadataMessage(describeContext('abcdef', 'reference'), 'Who?', 'python', budgets, pack),
    metadataList: buildMetadataMessage(describeContext(['ab', 'c'], 'reference'), null, 'python', budgets, pack),
    turn1: buildTurnPrompt({ turn: 1, maxIterations: 30, contextCount: 1, historyCount: 0, pack }),
    turn5: buildTurnPrompt({ turn: 5, maxIterations: 30, contextCount: 3, historyCount: 2, pack }),
    turn6: buildTurnPrompt({ turn: 6, maxIterations: 12, contextCount: 2, historyCount: 1, pack }),
    replOutput3: buildReplOutputMessage(
      [
        block({ stdout: 'a\n', variables: ['x', 'y'] }),
        block({ error: { name: 'NameError', message: "name 'q' is not defined" } }),
        block({}),
      ],
      'python',
      pack,
    ),
    replOutputCut: buildReplOutputMessage([block({ stdout: 'y'.repeat(cap + 7) })], 'python', pack),
    compactionNote2: compactionNote(2, pack),
    // As the Python REPL fills it: the listing is str() of a list of names.
    finalVarNotFound: fill(pack, 'finalVarNotFound', { name: 'y', available: "['context_0', 'x']" }),
    // As the Python REPL fills them: SHOW_VARS's listing is str() of a dict of type names.
    showVars: fill(pack, 'showVars', { variables: "{'context_0': 'str', 'n': 'int'}" }),
    subcallFailed: fill(pack, 'subcallFailed', { error: 'upstream down' }),
    subcallFailedBatched: fill(pack, 'subcallFailedBatched', { error: 'upstream down' }),
  };
}

/** Where two texts first differ, in a few words. */
export function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const around = (s: string): string => JSON.stringify(s.slice(Math.max(0, i - 30), i + 40));
  return `at character ${i}: ${around(a)} against ${around(b)}`;
}

export async function importReferencePack(o: ImportOptions = {}): Promise<ImportResult> {
  const probe = await runProbe(o);
  const pack = packFrom(probe);
  const ours = rendered(pack, probe.outputCap);
  const wrong = Object.entries(probe.samples).filter(([k, v]) => ours[k] !== v);
  if (wrong.length > 0) {
    throw new ReferenceImportError(
      `the imported texts do not rebuild what the reference library builds: ${wrong
        .map(([k, v]) => `${k} ${ours[k] === undefined ? '(not known here)' : firstDifference(v, ours[k])}`)
        .join('; ')}`,
    );
  }
  return { pack, checked: Object.keys(probe.samples).length };
}
