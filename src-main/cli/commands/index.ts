import type { Command } from 'commander';
import { registerDemo } from './demo.ts';
import { registerMockLlm } from './mock-llm.ts';
import { registerRun } from './run.ts';

/** Adds every subcommand to the program. */
export function registerCommands(program: Command): void {
  registerRun(program);
  registerMockLlm(program);
  registerDemo(program);
}
