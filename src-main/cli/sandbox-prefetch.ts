// A `run` or `chat` with the JavaScript REPL keeps it in the sandbox process (when this process
// runs on Node's startup snapshot, as bin/rlm-studio starts them, or holds the user's keys:
// engine/conversation.ts replsOutOfProcess). That process's own start (Node, isolated-vm, the
// context file read) is started here, from the raw command line, while this one loads the
// command and the SDK and sends the first model call, instead of once that call is out: the
// first block would otherwise wait for it (cli/python-prefetch.ts does the same for Python).
import { canHostIsolates } from '../sandbox/isolate-host.ts';
import { environmentIsScrubbed } from '../sandbox/sandbox-env.ts';

/** Whether `argv` (process.argv) is a `run` or `chat` whose REPL is JavaScript (not help, not `--max-depth 0`: no REPL). */
export function wantsJavaScriptRepl(argv: readonly string[]): boolean {
  if (argv[2] !== 'run' && argv[2] !== 'chat') return false;
  // The last one given wins, as commander reads them.
  const value = (name: string): string | undefined => {
    let found: string | undefined;
    for (let i = 3; i < argv.length; i++) {
      const arg = argv[i]!;
      if (arg.startsWith(`${name}=`)) found = arg.slice(name.length + 1);
      else if (arg === name) found = argv[i + 1];
    }
    return found;
  };
  if (argv.some((arg) => arg === '-h' || arg === '--help')) return false;
  const repl = value('--repl') ?? 'javascript';
  return repl === 'javascript' && Number(value('--max-depth') ?? 1) !== 0;
}

/** Starts the sandbox process for the command line's JavaScript REPL; says whether it did. */
export async function startJavaScriptSandboxEarly(argv: readonly string[]): Promise<boolean> {
  if (!wantsJavaScriptRepl(argv) || (canHostIsolates() && environmentIsScrubbed())) return false;
  (await import('../engine/sandbox-process/sandbox-process.ts')).sharedSandboxProcess().start();
  return true;
}
