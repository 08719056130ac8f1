// Which command modules the `rlm-studio` entry loads for a command line: the one named, all of
// them for help or an unknown name (so help lists them), none for the version.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCommands } from '../../../src-main/cli/commands/index.ts';

const names = async (...args: string[]): Promise<string[]> => {
  const program = new Command();
  await registerCommands(program, ['node', 'rlm-studio', ...args]);
  return program.commands.map((c) => c.name());
};

describe('registerCommands', () => {
  it('loads only the command named', async () => {
    expect(await names('stats', 'x.jsonl')).toEqual(['stats']);
  });

  it('loads every command for help or a name it does not know', async () => {
    const all = await names('--help');
    expect(all).toEqual(expect.arrayContaining(['run', 'chat', 'serve', 'view', 'eval', 'stats']));
    expect(await names('no-such-command')).toEqual(all);
  });

  it('loads none for the version', async () => {
    expect(await names('--version')).toEqual([]);
    expect(await names('-V')).toEqual([]);
  });
});
