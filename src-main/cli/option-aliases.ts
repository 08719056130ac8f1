// Old spellings of options, kept working as they were: one convention in --help (`-o, --output`
// for what a command writes, `--runs-dir` for where session logs go), the other names hidden
// and read as the canonical option.
import { Option, type Command } from 'commander';
import { UsageError } from './errors.ts';

/**
 * Adds the hidden option `flags` (e.g. `--log-dir <dir>`) whose value is the option
 * `canonical` (e.g. `--runs-dir <dir>`, already on `cmd`). Both given with different values is
 * a usage error; the same value twice is not.
 */
export function optionAlias(cmd: Command, flags: string, canonical: string): Command {
  const alias = new Option(flags).hideHelp();
  const target = cmd.options.find((o) => o.long === canonical);
  if (!target) throw new Error(`${canonical} is not an option of ${cmd.name()}`);
  const attr = target.attributeName();
  cmd.addOption(alias);
  const values: { alias?: unknown; canonical?: unknown } = {};
  const check = (): void => {
    if ('alias' in values && 'canonical' in values && values.alias !== values.canonical)
      throw new UsageError(`${alias.long} is the old name of ${canonical}; give one of them`);
  };
  cmd.on(`option:${target.name()}`, (value: unknown) => {
    values.canonical = value;
    check();
  });
  cmd.on(`option:${alias.name()}`, (value: unknown) => {
    values.alias = value;
    check();
    cmd.setOptionValueWithSource(attr, value, 'cli');
  });
  return cmd;
}

/** `optionAlias` on the subcommand `name` of `program` (registered just before). */
export function commandOptionAlias(program: Command, name: string, flags: string, canonical: string): void {
  const cmd = program.commands.find((c) => c.name() === name);
  if (!cmd) throw new Error(`no command ${name}`);
  optionAlias(cmd, flags, canonical);
}
