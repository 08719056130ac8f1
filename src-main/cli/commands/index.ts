import type { Command } from 'commander';

type Register = (program: Command) => void;

// Each command's module is imported only when that command runs: the heavy ones (the
// OpenAI SDK, the host, the mock server) cost hundreds of milliseconds of start-up that a
// whole-process `run` would otherwise pay for nothing.
const COMMANDS: Record<string, () => Promise<Register[]>> = {
  run: async () => [(await import('./run.ts')).registerRun],
  chat: async () => [(await import('./chat.ts')).registerChat],
  'mock-llm': async () => [(await import('./mock-llm.ts')).registerMockLlm],
  demo: async () => [(await import('./demo.ts')).registerDemo],
  stats: async () => [(await import('./stats.ts')).registerStats],
  coverage: async () => [(await import('./coverage.ts')).registerCoverage],
  rerun: async () => [(await import('./rerun.ts')).registerRerun],
  counterfactual: async () => [(await import('./counterfactual.ts')).registerCounterfactual],
  convert: async () => [(await import('./convert.ts')).registerConvert],
  bundle: async () => [(await import('./bundle.ts')).registerBundle],
  serve: async () => [(await import('./serve.ts')).registerServe],
  view: async () => [(await import('./serve.ts')).registerServe],
  start: async () => [(await import('./serve.ts')).registerServe],
  eval: async () => [(await import('./eval.ts')).registerEval],
  'eval-gen': async () => [(await import('./eval.ts')).registerEvalGen],
  'eval-status': async () => [(await import('./eval-status.ts')).registerEvalStatus],
  worker: async () => [(await import('./worker.ts')).registerWorker],
  'export-sft': async () => [(await import('./export-sft.ts')).registerExportSft],
  'export-calls': async () => [(await import('./export-calls.ts')).registerExportCalls],
  'export-otlp': async () => [(await import('./export-otlp.ts')).registerExportOtlp],
  label: async () => [(await import('./label.ts')).registerLabel],
  query: async () => [(await import('./query.ts')).registerQuery],
  prompts: async () => [(await import('./prompts.ts')).registerPrompts],
  score: async () => [(await import('./score.ts')).registerScore],
  scan: async () => [(await import('./scan.ts')).registerScan],
  sweep: async () => [(await import('./sweep.ts')).registerSweep],
  'sweep-summary': async () => [(await import('./sweep.ts')).registerSweepSummary],
};

/** Asking for the version needs no command (loading them all would take ~0.2 s). */
const VERSION_FLAGS = new Set(['-V', '--version']);

/** Adds the subcommand named in `argv` (or, for help and unknown names, every one). */
export async function registerCommands(program: Command, argv: readonly string[]): Promise<void> {
  const name = argv[2];
  if (name !== undefined && VERSION_FLAGS.has(name)) return;
  const loaders = name !== undefined && name in COMMANDS ? [COMMANDS[name]!] : [...new Set(Object.values(COMMANDS))];
  const seen = new Set<Register>();
  for (const load of loaders) {
    for (const register of await load()) {
      if (seen.has(register)) continue;
      seen.add(register);
      register(program);
    }
  }
}
