// A whole-process `run` with the JavaScript REPL: `RLM_STUDIO_TIMING=1` reports where the time
// went, in the order it went (the sandbox process started once the first request is out), and
// the command ends by itself once it has printed its answer: nothing (a timer, a socket, the
// sandbox's channel) keeps it alive, and nobody kills it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needleContext } from '../../../src-main/demo/contexts.ts';
import { runArgs, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
let dir: string;
let context: string;
let answer: string;

beforeAll(async () => {
  mock = await startMockProcess();
  dir = mkdtempSync(join(tmpdir(), 'rlm-run-timing-'));
  const needle = needleContext(200_000, 3);
  context = join(dir, 'needle.txt');
  writeFileSync(context, needle.text);
  answer = needle.answer;
});

afterAll(async () => {
  await mock.close();
});

/** The report's marks, in its order. */
function marks(stderr: string): string[] {
  const at = stderr.indexOf('rlm-studio timing');
  expect(at, stderr).toBeGreaterThanOrEqual(0);
  return stderr
    .slice(at)
    .split('\n')
    .slice(1)
    .flatMap((line) => {
      const m = /^\s*-?\d+\.\d\s+\+-?\d+\.\d\s+(?:-?\d+\.\d)? {2}(.+)$/.exec(line);
      return m ? [m[1]!] : [];
    });
}

describe('run, start to exit', () => {
  it('reports its phases in order and exits by itself', async () => {
    const { done } = startCli(
      [...runArgs({ context, query: 'What is the magic number in the context?', baseUrl: mock.url, logDir: join(dir, 'logs') }), '--json'],
      {
        RLM_STUDIO_TIMING: '1',
      },
    );
    const res = await done;
    // Ended on its own, successfully: not killed, no handle left open.
    expect(res.signal).toBeNull();
    expect(res.code, res.stderr).toBe(0);
    expect((JSON.parse(res.stdout) as { answer: string }).answer).toBe(answer);
    const m = marks(res.stderr);
    const at = (name: string): number => {
      const i = m.findIndex((x) => x.startsWith(name));
      expect(i, `${name} in ${m.join(' | ')}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    expect(m[0]).toBe('launch (bin/rlm-studio)');
    expect(at('node started')).toBeLessThan(at('command line loaded'));
    // The sandbox process starts once the first request is out (its start would compete with
    // this process's before it), and its REPL has the context before the first block runs.
    expect(at('request 1 to the endpoint')).toBeLessThan(at('sandbox process spawned'));
    expect(at('sandbox op 0 (addContextFile) sent')).toBeLessThan(at('block.start (iteration 1, block 0)'));
    expect(at('request 1 to the endpoint')).toBeLessThan(at('model.reply (iteration 1)'));
    // Fetch's HTTP parser is held on baseline code (lm/http-parser-tiering.ts): set once the SDK
    // has loaded (a flag set earlier would spoil the built-ins' code cache) and before the first
    // request instantiates the parser.
    expect(at('openai SDK loaded')).toBeLessThan(at('http parser kept on baseline'));
    expect(at('http parser kept on baseline')).toBeLessThan(at('request 1 to the endpoint'));
    // While the first request waits, a made-up reply runs through the SDK's stream reading
    // (openai-client.ts), and went through it whole.
    expect(at('request 1 to the endpoint')).toBeLessThan(at('stream reading warmed'));
    expect(at('model.reply (iteration 1)')).toBeLessThan(at('block.start (iteration 1, block 0)'));
    expect(at('run.end')).toBeLessThan(at('run: summary ready'));
    expect(m.at(-1)).toBe('exit');
  });

  it('prints no report unless asked, and still exits by itself', async () => {
    const { done } = startCli([
      ...runArgs({ context, query: 'What is the magic number in the context?', baseUrl: mock.url, logDir: join(dir, 'logs2') }),
      '--json',
    ]);
    const res = await done;
    expect(res.signal).toBeNull();
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).not.toContain('rlm-studio timing');
  });
});
