import type { Command } from 'commander';
import { registerMockLlm } from './mock-llm.ts';
import { registerRun } from './run.ts';

/** Adds every subcommand to the program. */
export function registerCommands(program: Command): void {
  registerRun(program);
  registerMockLlm(program);
}
