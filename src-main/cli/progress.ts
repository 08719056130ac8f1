// Human-readable progress of a run, one line per step, for stderr.
import { retriesText, sandboxLayersText, type TrajectoryEvent } from '../../src-shared/events.ts';

function oneLine(s: string, max = 100): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function progressLine(e: TrajectoryEvent): string | null {
  // Concurrent children interleave, so their lines carry the run id.
  const pad = e.depth === 0 ? '' : `${'  '.repeat(e.depth)}[${e.runId}] `;
  switch (e.type) {
    case 'run.start':
      return e.depth === 0
        ? `${pad}run ${e.runId}${e.turn > 0 ? ` (turn ${e.turn})` : ''}: ${e.model}, context ${e.context.type} of ${e.context.totalChars} chars` +
            (e.sandbox && e.turn === 0 ? `\nsandbox: ${sandboxLayersText(e.sandbox)}` : '')
        : `${pad}child run started (depth ${e.depth})`;
    case 'iteration.start':
      return `${pad}iteration ${e.iteration}`;
    case 'model.reply':
      return `${pad}  ${e.purpose === 'turn' ? 'reply' : e.purpose.replace('_', ' ')}: ${e.usage.inputTokens}+${e.usage.outputTokens} tokens, ${(e.latencyMs / 1000).toFixed(2)} s${e.retries ? ` (${retriesText(e.retries)})` : ''}`;
    case 'block.end':
      return `${pad}  block ${e.block + 1}: ${e.error ? `${e.error.name}: ${oneLine(e.error.message, 80)}` : 'ok'}${e.submitted !== null ? ' (answer submitted)' : ''}${e.replReset ? ` [REPL restarted: ${e.replReset}]` : ''}`;
    case 'compaction':
      return `${pad}  history compacted (${e.tokensBefore} tokens before)`;
    case 'limit':
      return `${pad}limit: ${e.message}`;
    case 'model.error':
      return `${pad}model error: ${e.message}`;
    case 'run.end':
      return `${pad}${e.depth === 0 ? 'done' : '↲ child done'}: ${e.stopReason} after ${e.iterations} iteration(s), ${(e.durationMs / 1000).toFixed(2)} s`;
    case 'iteration.end':
    case 'block.start':
    case 'subcall.start':
    case 'subcall.end':
    case 'repl.reset':
      return null;
  }
}
