// A code block's output as the views show it, and where the model's view of it was cut.
import type { ComparedOutput } from '../../src-shared/events.ts';
import { OUTPUT_CAP_CHARS } from '../../src-shared/output-cap.ts';

/**
 * The line a block's error adds after its stderr, or null when the stderr already shows it: a
 * reference log records no error of its own, and its import reads one from the traceback's
 * last line (or, failing that, takes the whole stderr as the message).
 */
export function errorLineOf(o: Pick<ComparedOutput, 'stderr' | 'error'>): string | null {
  const e = o.error;
  if (!e) return null;
  const line = `${e.name}: ${e.message}`;
  const err = o.stderr.trim();
  if (err === '') return line;
  const shown =
    err.includes(line) ||
    (e.message === '' && err.split('\n').some((l) => l.trim().endsWith(e.name))) ||
    (e.name === 'Error' && (err === e.message || (e.message.endsWith('…') && err.startsWith(e.message.slice(0, -1)))));
  return shown ? null : line;
}

/** A block's stdout, stderr and error (when the stderr does not show it) as the block view shows them. */
export function blockOutputText(o: Pick<ComparedOutput, 'stdout' | 'stderr' | 'error'>, sep = '\n\n'): string {
  const parts: string[] = [];
  if (o.stdout) parts.push(o.stdout.replace(/\n$/, ''));
  if (o.stderr) parts.push(o.stderr.replace(/\n$/, ''));
  const error = errorLineOf(o);
  if (error) parts.push(error);
  return parts.join(sep);
}

/** Where the model's view of this output text was cut, if it was (when the log does not record the message: at our packs' cap). */
export function truncationOf(text: string, cap = OUTPUT_CAP_CHARS): { cutAt: number; total: number } | null {
  return text.length > cap ? { cutAt: cap, total: text.length } : null;
}
