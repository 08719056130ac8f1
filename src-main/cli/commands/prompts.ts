// `rlm-studio prompts …`: the prompt packs every text the model reads comes from.
//   import-reference -o PACK.json [--python BIN] [--from DIR]   a pack from the user's reference library
//   show [PACK] [--slot NAME]                                   a pack's settings and texts
//   export NAME [-o PACK.json]                                  one of our packs as a file, to edit
//   diff A B                                                    what differs between two packs
// PACK is a file, or the name of one of our packs (rlm-studio-javascript, rlm-studio-python).
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { processOutput, type Output } from '../log-inputs.ts';
import { writeOutput, writeWhole } from '../output-file.ts';
import { OUR_PACKS } from '../../lm/our-prompt-packs.ts';
import { packHash, PromptPackError, SLOT_NAMES, type PromptPack, type SlotName } from '../../lm/prompt-pack.ts';
import { loadPromptPack } from '../../lm/prompt-pack-schema.ts';
import { firstDifference, importReferencePack, ReferenceImportError } from '../prompt-import/import-reference.ts';

const BUILT_IN: Record<string, PromptPack> = Object.fromEntries(Object.values(OUR_PACKS).map((p) => [p.name, p]));

/** A pack named on the command line: one of ours by name, else a file. */
export async function packArg(arg: string): Promise<PromptPack> {
  const ours = BUILT_IN[arg];
  if (ours) return ours;
  try {
    return await loadPromptPack(arg);
  } catch (err) {
    if (err instanceof PromptPackError) throw new UsageError(`${err.message} (our packs: ${Object.keys(BUILT_IN).join(', ')})`);
    throw err;
  }
}

const isFolder = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

const packJson = (pack: PromptPack): string => `${JSON.stringify(pack, null, 2)}\n`;

function settings(pack: PromptPack): [string, string][] {
  return [
    ['name', pack.name],
    ['hash', packHash(pack)],
    ['language', pack.language],
    ['semantics', pack.semantics],
    ['numbers', pack.numbers],
    ['outputCap', String(pack.outputCap)],
    ['roles.finalAnswerRequest', pack.roles.finalAnswerRequest],
    ...(pack.source ? [['source', pack.source] as [string, string]] : []),
    ...(pack.description ? [['description', pack.description] as [string, string]] : []),
  ];
}

export function showPack(pack: PromptPack, slot?: string): string {
  if (slot !== undefined) {
    if (!(SLOT_NAMES as string[]).includes(slot)) throw new UsageError(`--slot: no slot "${slot}"; the slots are ${SLOT_NAMES.join(', ')}`);
    return pack.texts[slot as SlotName];
  }
  const head = settings(pack).map(([k, v]) => `${k}: ${v}`);
  const body = SLOT_NAMES.map((s) => `--- ${s} (${pack.texts[s].length} characters) ---\n${pack.texts[s]}`);
  return `${[...head, '', ...body].join('\n')}\n`;
}

/** One line per setting or slot that differs; empty when the packs are the same. */
export function diffPacks(a: PromptPack, b: PromptPack): string[] {
  const lines: string[] = [];
  const sa = new Map(settings(a));
  for (const [k, v] of settings(b))
    if (k !== 'hash' && sa.get(k) !== v) lines.push(`${k}: ${JSON.stringify(sa.get(k) ?? null)} → ${JSON.stringify(v)}`);
  for (const s of SLOT_NAMES) if (a.texts[s] !== b.texts[s]) lines.push(`${s}: differs ${firstDifference(a.texts[s], b.texts[s])}`);
  return lines;
}

export function registerPrompts(program: Command, io: Output = processOutput): void {
  const prompts = program
    .command('prompts')
    .description(
      `Prompt packs: every text the model reads comes from one (run|chat|eval --prompts PACK). PACK is a file or one of ours: ${Object.keys(BUILT_IN).join(', ')}.`,
    );
  prompts
    .command('import-reference')
    .description(
      "Writes a pack with the texts of your own copy of the reference library (alexzhang13/rlm), read by running its Python; with it and --repl python, every request is the reference's",
    )
    .requiredOption('-o, --output <PACK.json>', 'the pack to write (never overwritten)')
    .option('--python <BIN>', 'the Python that can import the library (default python3)')
    .option('--from <DIR>', 'a checkout of the library, first on the import path (default: whatever `import rlm` finds)')
    .action(async (o: { output: string; python?: string; from?: string }) => {
      if (o.from !== undefined && !(await isFolder(o.from)))
        throw new UsageError(`--from ${o.from} is not a folder (a checkout of alexzhang13/rlm)`);
      let result;
      try {
        result = await importReferencePack({ ...(o.python ? { python: o.python } : {}), ...(o.from ? { from: o.from } : {}) });
      } catch (err) {
        if (err instanceof ReferenceImportError) throw new UsageError(err.message);
        throw err;
      }
      await writeWhole(o.output, (sink) => sink.write(packJson(result.pack)));
      io.err(
        `prompts: wrote ${o.output}: ${result.pack.name} (hash ${packHash(result.pack)}), from ${result.pack.source ?? 'the reference library'}; ${result.checked} samples rebuilt exactly\n`,
      );
    });
  prompts
    .command('show')
    .description("A pack's settings and every text, slot by slot")
    .argument('[PACK]', 'a pack file or one of ours', 'rlm-studio-javascript')
    .option('--slot <NAME>', 'print only this slot, exactly as stored')
    .action(async (arg: string, o: { slot?: string }) => io.out(showPack(await packArg(arg), o.slot)));
  prompts
    .command('export')
    .description('Writes one of our packs (or a pack file, checked) as JSON: a start for your own')
    .argument('<PACK>', 'one of ours, or a pack file')
    .option('-o, --output <PACK.json>', 'the file to write (never overwritten; default stdout)')
    .action(async (arg: string, o: { output?: string }) => {
      const pack = await packArg(arg);
      await writeOutput(o.output, false, io, (sink) => sink.write(packJson(pack)));
    });
  prompts
    .command('diff')
    .description('What differs between two packs, setting by setting and slot by slot (exit 1 when they differ)')
    .argument('<A>', 'a pack file or one of ours')
    .argument('<B>', 'a pack file or one of ours')
    .action(async (a: string, b: string) => {
      const lines = diffPacks(await packArg(a), await packArg(b));
      io.out(lines.length === 0 ? 'the packs are the same\n' : `${lines.join('\n')}\n`);
      if (lines.length > 0) process.exitCode = 1;
    });
}
