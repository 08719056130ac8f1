// Issue 40, defect 6: `run` prints the model's answer; on a terminal without the control
// sequences in it (a window title, an OSC 8 link, a cleared screen), to a pipe exactly as the
// model wrote it. The terminal is a real pseudo-terminal: util-linux `script` runs the command.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, runArgs, runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

/** util-linux's `script` (Debian's bsdutils, always installed): runs a command on a pseudo-terminal. */
const SCRIPT = '/usr/bin/script';
const ESC = '\u001b';
const BEL = '\u0007';
const ANSWER = `title${ESC}]0;pwned${BEL} and ${ESC}]8;;https://evil.example/${ESC}\\link${ESC}]8;;${ESC}\\ done${ESC}[2J`;

let mock: MockProcess;
let dir: string;
let args: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-tty-'));
  const script = join(dir, 'script.json');
  const code = `answer["content"] = ${JSON.stringify(ANSWER)};\nanswer["ready"] = true;`;
  writeFileSync(script, JSON.stringify({ rules: [{ match: { kind: 'rlm' }, reply: `\`\`\`repl\n${code}\n\`\`\`` }] }));
  mock = await startMockProcess(['--script', script]);
  const context = join(dir, 'ctx.txt');
  writeFileSync(context, 'abc');
  args = runArgs({ context, query: 'q', baseUrl: mock.url, logDir: join(dir, 'logs') });
});

afterAll(async () => {
  await mock.close();
});

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

describe('run’s answer on a terminal and down a pipe', () => {
  it('a terminal gets the answer without its control sequences', () => {
    // stdout and stderr both on the pseudo-terminal, as someone typing the command sees them.
    const r = spawnSync(SCRIPT, ['-q', '-e', '-c', [cliPath, ...args].map(quote).join(' '), '/dev/null'], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 55_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('title and link done');
    // Our own progress line rewrites itself on a terminal (carriage return, erase to the end of
    // the line); nothing else may reach it.
    const seen = r.stdout.replaceAll('\r\x1b[K', '');
    expect(seen).not.toContain(ESC);
    expect(seen).not.toContain(BEL);
  });

  it('a pipe gets it byte for byte', async () => {
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${ANSWER}\n`);
  });
});
