// Entry point of the `rlm-studio` command. Each subcommand lives in commands/<name>.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerCommands } from './commands/index.ts';
import { UsageError } from './errors.ts';
import { repoRoot } from './repo-root.ts';
import { exitProcess, pythonUsed } from '../sandbox/python/lifecycle.ts';
import { startPythonEarly } from './python-prefetch.ts';
import { startTimingReport } from './timing-report.ts';
import { markPhase } from '../../src-shared/phase-timing.ts';

startTimingReport(process.env);
markPhase('command line loaded');

// `run` and `chat` will ask whether the OS sandbox works: its probe runs while they load.
if (process.argv[2] === 'run' || process.argv[2] === 'chat') {
  void import('../sandbox/os-sandbox/bwrap.ts').then(
    (m) => m.probeOsSandboxSoon(),
    () => undefined,
  );
}
await startPythonEarly(process.argv);

const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const program = new Command();
program
  .name('rlm-studio')
  .description('Run, record and inspect Recursive Language Models.')
  .version(version, '-V, --version', 'print the version')
  .showHelpAfterError()
  .exitOverride();

// A reader that stops early (`| head`) closes the pipe: end quietly with the status of a tool
// killed by SIGPIPE, not with Node's trace of an unhandled EPIPE.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(141);
});

await registerCommands(program, process.argv);
markPhase('commands registered');

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Commander has already printed its message (help, version, unknown option…). Its errors
    // (a missing or invalid option) are usage errors, with the same status as ours.
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (err instanceof UsageError) {
    process.stderr.write(`rlm-studio: ${err.message}\n`);
    process.exitCode = 2;
  } else {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`rlm-studio: ${message}\n`);
    if (process.env['RLM_DEBUG'] && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  }
}

// A process that ran Python must end explicitly (see sandbox/python/lifecycle.ts).
if (pythonUsed()) await exitProcess(typeof process.exitCode === 'number' ? process.exitCode : 0);
