// Human-readable progress of a run, one line per step, for stderr.
import { retriesText, sandboxLayersText, type TrajectoryEvent } from '../../src-shared/events.ts';
import { tokensPerSecond, type LiveReplyDelta } from '../../src-shared/live-reply.ts';

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

/** The line of a reply being written: tokens so far and the rate ("  writing reply: 212 tokens so far, 41.3 tok/s"). */
function liveProgressLine(d: LiveReplyDelta): string {
  const pad = d.depth === 0 ? '' : `${'  '.repeat(d.depth)}[${d.runId}] `;
  const rate = tokensPerSecond(d.tokens, d.elapsedMs);
  const what = d.purpose === 'turn' ? 'reply' : d.purpose.replace('_', ' ');
  return `${pad}  writing ${what}: ${d.tokens} tokens so far${rate !== null ? `, ${rate.toFixed(1)} tok/s` : ''}`;
}

/**
 * Writes a reply's progress where a person watches it: on a terminal one line rewritten in
 * place (and cleared before the next ordinary line); elsewhere a line for the first piece of
 * each reply and then at most one a second.
 */
export function liveProgressWriter(out: { write(s: string): unknown; isTTY?: boolean }): {
  live(d: LiveReplyDelta): void;
  line(text: string): void;
} {
  let shown = false;
  let lastAt = 0;
  let lastCall = '';
  return {
    live(d) {
      const call = `${d.runId}/${d.iteration}/${d.purpose}`;
      const now = Date.now();
      if (out.isTTY) {
        out.write(`\r\x1b[K${liveProgressLine(d)}`);
        shown = true;
        return;
      }
      if (call === lastCall && now - lastAt < 1000) return;
      lastCall = call;
      lastAt = now;
      out.write(`${liveProgressLine(d)}\n`);
    },
    line(text) {
      if (shown) out.write('\r\x1b[K');
      shown = false;
      out.write(`${text}\n`);
    },
  };
}
