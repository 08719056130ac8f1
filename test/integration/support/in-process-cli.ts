// Runs `rlm-studio` commands in this process: the given commands registered on a fresh
// program, stdout and stderr captured, the error thrown (a UsageError, commander's exit) kept.
import { Command } from 'commander';
import { vi } from 'vitest';

export interface InProcessResult {
  out: string;
  err: string;
  error: unknown;
}

export async function runInProcess(register: readonly ((program: Command) => void)[], args: string[]): Promise<InProcessResult> {
  const program = new Command().name('rlm-studio').exitOverride();
  for (const r of register) r(program);
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  let error: unknown = null;
  try {
    await program.parseAsync(['node', 'rlm-studio', ...args]);
  } catch (e) {
    error = e;
  }
  vi.restoreAllMocks();
  return { out, err, error };
}
