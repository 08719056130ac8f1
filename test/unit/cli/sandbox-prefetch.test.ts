// Which command lines start the sandbox process for a JavaScript REPL at once
// (cli/sandbox-prefetch.ts): `run` and `chat` whose REPL is JavaScript, the default, and that
// have a REPL at all; not help, not Python or CPython, not other commands.
import { describe, expect, it } from 'vitest';
import { wantsJavaScriptRepl } from '../../../src-main/cli/sandbox-prefetch.ts';

const argv = (...args: string[]): string[] => ['node', 'rlm-studio', ...args];

describe('wantsJavaScriptRepl', () => {
  it('is true for run and chat with the JavaScript REPL, named or by default', () => {
    expect(wantsJavaScriptRepl(argv('run', '--context', 'c.txt', '--query', 'q'))).toBe(true);
    expect(wantsJavaScriptRepl(argv('run', '--repl', 'javascript', '--context', 'c.txt'))).toBe(true);
    expect(wantsJavaScriptRepl(argv('chat', '--repl=javascript'))).toBe(true);
    expect(wantsJavaScriptRepl(argv('run', '--query', 'python', '--max-depth', '2'))).toBe(true);
  });

  it('is false for another REPL, no REPL (--max-depth 0), help and other commands', () => {
    expect(wantsJavaScriptRepl(argv('run', '--repl', 'python'))).toBe(false);
    expect(wantsJavaScriptRepl(argv('run', '--repl=cpython'))).toBe(false);
    expect(wantsJavaScriptRepl(argv('run', '--max-depth', '0', '--context', 'c.txt'))).toBe(false);
    expect(wantsJavaScriptRepl(argv('run', '--max-depth=0'))).toBe(false);
    expect(wantsJavaScriptRepl(argv('run', '--help'))).toBe(false);
    expect(wantsJavaScriptRepl(argv('eval', 'ds.jsonl'))).toBe(false);
    expect(wantsJavaScriptRepl(argv())).toBe(false);
  });

  it('reads the last of a repeated option, as the command does', () => {
    expect(wantsJavaScriptRepl(argv('run', '--repl', 'python', '--repl', 'javascript'))).toBe(true);
    expect(wantsJavaScriptRepl(argv('run', '--repl', 'javascript', '--repl=python'))).toBe(false);
  });
});
