// `rlm-studio eval-status --queue URL`: what the queue holds, which workers are connected, and
// where each evaluation on it stands.
import type { Command } from 'commander';
import { progressLine } from '../../eval/progress.ts';
import { UsageError } from '../errors.ts';

export function registerEvalStatus(program: Command): void {
  program
    .command('eval-status')
    .description('Show a queued evaluation: jobs by state, workers connected, progress of each evaluation.')
    .requiredOption('--queue <redis-url>', 'the Redis of the evaluation, e.g. redis://host:6379/0')
    .option('--json', 'print one JSON object')
    .action(async (o: { queue: string; json?: boolean }) => {
      const { queueStatus } = await import('../../eval/queue/status.ts');
      let s;
      try {
        s = await queueStatus(o.queue);
      } catch (err) {
        if (err instanceof Error && err.name === 'QueueSetupError') throw new UsageError(err.message);
        throw new Error(`cannot read the queue at ${o.queue}: ${(err as Error).message}`, { cause: err });
      }
      if (o.json) {
        process.stdout.write(`${JSON.stringify(s)}\n`);
        return;
      }
      const c = s.counts;
      const lines = [
        `queue: ${c['waiting'] ?? 0} waiting, ${c['active'] ?? 0} running, ${(c['delayed'] ?? 0) + (c['prioritized'] ?? 0)} delayed, ${c['completed'] ?? 0} finished not yet collected, ${c['failed'] ?? 0} failed not yet collected`,
        `workers: ${s.workers.length === 0 ? 'none connected' : `${s.workers.length} (${s.workers.join(', ')})`}`,
      ];
      if (s.evaluations.length === 0) lines.push('evaluations: none');
      for (const e of s.evaluations) {
        lines.push(
          `evaluation ${e.evalId}: ${e.dataset ?? '?'} → ${e.outDir ?? '?'}${e.model ? `, model ${e.model}` : ''}${e.coordinator ? `, coordinator ${e.coordinator}` : ''}`,
        );
        lines.push(
          e.progress === null
            ? '  no progress published yet'
            : `  ${e.progress.state}: ${progressLine(e.progress)} (as of ${e.progress.updatedAt})`,
        );
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
