import type { Command } from 'commander';
import { registerConvert } from './convert.ts';
import { registerDemo } from './demo.ts';
import { registerEval, registerEvalGen } from './eval.ts';
import { registerMockLlm } from './mock-llm.ts';
import { registerRun } from './run.ts';
import { registerServe } from './serve.ts';
import { registerStats } from './stats.ts';

/** Adds every subcommand to the program. */
export function registerCommands(program: Command): void {
  registerRun(program);
  registerMockLlm(program);
  registerDemo(program);
  registerStats(program);
  registerConvert(program);
  registerServe(program);
  registerEval(program);
  registerEvalGen(program);
}
