import type { Command } from 'commander';
import { registerRun } from './run.ts';

/** Adds every subcommand to the program. */
export function registerCommands(program: Command): void {
  registerRun(program);
}
