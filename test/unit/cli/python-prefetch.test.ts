// Which command lines start Python early (cli/python-prefetch.ts): `run` and `chat` asking for
// the Python REPL, in either spelling of the option, and nothing else.
import { describe, expect, it } from 'vitest';
import { contextFileOf, wantsCPythonRepl, wantsPythonRepl } from '../../../src-main/cli/python-prefetch.ts';

const argv = (...args: string[]): string[] => ['node', 'rlm-studio', ...args];

describe('wantsPythonRepl', () => {
  it('is true for run and chat with the Python REPL', () => {
    expect(wantsPythonRepl(argv('run', '--context', 'c.txt', '--repl', 'python'))).toBe(true);
    expect(wantsPythonRepl(argv('run', '--repl=python', '--context', 'c.txt'))).toBe(true);
    expect(wantsPythonRepl(argv('chat', '--repl', 'python'))).toBe(true);
  });

  it('is false for the JavaScript REPL, a value that only looks like it, and other commands', () => {
    expect(wantsPythonRepl(argv('run', '--context', 'c.txt'))).toBe(false);
    expect(wantsPythonRepl(argv('run', '--repl', 'javascript', '--query', 'python'))).toBe(false);
    expect(wantsPythonRepl(argv('eval', '--repl', 'python'))).toBe(false);
    expect(wantsPythonRepl(argv('rerun', 'log.jsonl', '--repl=python'))).toBe(false);
    expect(wantsPythonRepl(argv())).toBe(false);
  });
});

describe('wantsCPythonRepl', () => {
  it('names the interpreter of a run or chat with --repl cpython', () => {
    expect(wantsCPythonRepl(argv('run', '--repl', 'cpython', '--context', 'c.txt'))).toBe('');
    expect(wantsCPythonRepl(argv('chat', '--repl=cpython', '--python', '/opt/py/bin/python3'))).toBe('/opt/py/bin/python3');
    expect(wantsCPythonRepl(argv('run', '--python=python3.12', '--repl', 'cpython'))).toBe('python3.12');
  });

  it('is null for any other command line', () => {
    expect(wantsCPythonRepl(argv('run', '--repl', 'python'))).toBeNull();
    expect(wantsCPythonRepl(argv('eval', '--repl', 'cpython'))).toBeNull();
    expect(wantsCPythonRepl(argv('run', '--query', 'cpython'))).toBeNull();
  });
});

describe('contextFileOf', () => {
  it('names the --context file of a command line, in either spelling', () => {
    expect(contextFileOf(['node', 'rlm-studio', 'run', '--repl', 'python', '--context', 'a.txt'])).toBe('a.txt');
    expect(contextFileOf(['node', 'rlm-studio', 'run', '--context=b.txt', '--repl', 'python'])).toBe('b.txt');
    expect(contextFileOf(['node', 'rlm-studio', 'run', '--repl', 'python'])).toBeNull();
  });
});
