// `rlm-studio worker --queue URL [--concurrency N]`: runs queued evaluation sessions (from
// `rlm-studio eval --queue URL`) until stopped. Ctrl-C or SIGTERM stops taking sessions and
// lets the running ones finish and report; a second one exits at once (those sessions are
// taken again by other workers once their locks expire).
import type { Command } from 'commander';
import { Option } from 'commander';
import { UsageError } from '../errors.ts';
import { positiveInt } from '../options.ts';
import { keepReplsOutOfProcess } from '../../engine/conversation.ts';

interface WorkerCliOptions {
  queue: string;
  concurrency: number;
  lockDuration: number;
}

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Run queued evaluation sessions (rlm-studio eval --queue URL) on this machine until stopped.')
    .requiredOption('--queue <redis-url>', 'the Redis of the evaluation, e.g. redis://host:6379/0')
    .addOption(new Option('--concurrency <n>', 'sessions at once in this process').argParser(positiveInt('--concurrency')).default(2))
    .addOption(
      new Option('--lock-duration <ms>', "a session's lock; when this worker dies, its sessions are taken again after about this long")
        .argParser(positiveInt('--lock-duration'))
        .default(30_000),
    )
    .action(async (o: WorkerCliOptions) => {
      // The API keys are in this process's environment: the model's code runs elsewhere.
      keepReplsOutOfProcess();
      const { startQueueWorker } = await import('../../eval/queue/worker.ts');
      const { QueueSetupError } = await import('../../eval/queue/redis.ts');
      let worker;
      try {
        worker = await startQueueWorker({
          url: o.queue,
          concurrency: o.concurrency,
          lockDurationMs: o.lockDuration,
          onLine: (line) => process.stderr.write(`${line}\n`),
        });
      } catch (err) {
        if (err instanceof QueueSetupError) throw new UsageError(err.message);
        throw err;
      }
      process.stderr.write(
        `worker ${worker.name}: taking sessions from ${o.queue.replace(/\/\/[^@/]*@/, '//…@')}, ${o.concurrency} at a time\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.stderr.write(`worker ${worker.name}: stopping after the sessions in progress (again to exit now)\n`);
          process.once('SIGINT', () => process.exit(130));
          process.once('SIGTERM', () => process.exit(143));
          void worker.close().then(resolve);
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    });
}
