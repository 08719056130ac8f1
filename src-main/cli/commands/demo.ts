// `rlm-studio demo`: the built-in demo. Starts the bundled mock model, runs a recursive
// session over a bundled context and shows it step by step. Needs no API key or network.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { needleContext, reportContext, ticketsContext } from '../../demo/contexts.ts';
import { startMockLlm } from '../../mock-llm/server.ts';
import { defaultRunsDir } from '../../logs/paths.ts';
import { nonNegativeInt, runOnce, type RunCliOptions } from './run.ts';

const SCENARIOS = {
  recursive: { query: 'Summarise each section of the report and what it found (recursive, per section).', maxDepth: 2 },
  needle: { query: 'What is the magic number hidden in the context?', maxDepth: 1 },
  aggregate: { query: 'How many tickets have the label billing?', maxDepth: 1 },
} as const;
type Scenario = keyof typeof SCENARIOS;

function writeDemoContext(scenario: Scenario, dir: string): string {
  mkdirSync(dir, { recursive: true });
  switch (scenario) {
    case 'recursive': {
      const path = join(dir, 'report.txt');
      writeFileSync(path, reportContext(6, 4000, 42).text);
      return path;
    }
    case 'needle': {
      const path = join(dir, 'haystack.txt');
      writeFileSync(path, needleContext(2_000_000, 42).text);
      return path;
    }
    case 'aggregate': {
      const path = join(dir, 'tickets.json');
      writeFileSync(path, JSON.stringify(ticketsContext(2000, 42).items));
      return path;
    }
  }
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Run the built-in demo against the bundled mock model (no API key needed).')
    .addOption(new Option('--scenario <name>', 'which demo to run').choices(Object.keys(SCENARIOS)).default('recursive'))
    .addOption(new Option('--latency-ms <n>', 'simulated model latency per call').argParser(nonNegativeInt('--latency-ms')).default(120))
    .option('--log-dir <dir>', 'where the session log goes', defaultRunsDir())
    .action(async (o: { scenario: Scenario; latencyMs: number; logDir: string }) => {
      const mock = await startMockLlm({ port: 0, latencyMs: o.latencyMs, costPerMTok: 0.5 });
      try {
        const s = SCENARIOS[o.scenario];
        const context = writeDemoContext(o.scenario, join(o.logDir, 'demo-contexts'));
        process.stderr.write(`demo: ${o.scenario} — "${s.query}"\ndemo: mock model at ${mock.url}, context ${context}\n\n`);
        const opts: RunCliOptions = { context, query: s.query, baseUrl: mock.url, model: 'mock-root', maxDepth: s.maxDepth, logDir: o.logDir };
        const summary = await runOnce(opts, (line) => process.stderr.write(`${line}\n`));
        process.stdout.write(`\nanswer (${summary.stopReason}):\n${summary.answer ?? ''}\n\n`);
        process.stdout.write(`${summary.iterations} root iterations, ${summary.usage.calls} model calls, ${summary.usage.inputTokens}+${summary.usage.outputTokens} tokens, $${summary.usage.costUsd ?? 0}, ${(summary.durationMs / 1000).toFixed(2)} s\nlog: ${summary.logFile}\n`);
      } finally {
        await mock.close();
      }
    });
}
