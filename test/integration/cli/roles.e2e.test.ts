// `run` with a sub-call endpoint and sampling per role: the real CLI against two real
// mock-llm processes, each recording what it was sent (`mock-llm --record FILE`).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needleContext } from '../../../src-main/demo/contexts.ts';
import type { RecordedRequest } from '../../../src-main/mock-llm/server.ts';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let dir: string;
let rootMock: MockProcess;
let subMock: MockProcess;
let contextFile: string;
const rootRecord = (): string => join(dir, 'root.jsonl');
const subRecord = (): string => join(dir, 'sub.jsonl');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-roles-'));
  rootMock = await startMockProcess(['--record', rootRecord()]);
  subMock = await startMockProcess(['--record', subRecord(), '--cost-per-mtok', '2']);
  contextFile = join(dir, 'needle.txt');
  writeFileSync(contextFile, needleContext(20_000, 3).text);
});

afterAll(async () => {
  await Promise.all([rootMock.close(), subMock.close()]);
});

const read = (path: string): RecordedRequest[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RecordedRequest);

const base = (): string[] => [
  'run',
  '--context',
  contextFile,
  '--query',
  'What is the magic number in the context?',
  '--base-url',
  rootMock.url,
  '--model',
  'mock-root',
];

describe('run --sub-base-url and sampling flags', () => {
  it('sends turns to --base-url and sub-calls to --sub-base-url, with the sampling of each role', async () => {
    const res = await runCli(
      [
        ...base(),
        '--sub-base-url',
        subMock.url,
        '--sub-model',
        'mock-sub',
        '--sub-api-key-env',
        'RLM_TEST_SUB_KEY',
        '--temperature',
        '0.2',
        '--seed',
        '11',
        '--max-output-tokens',
        '900',
        '--sub-temperature',
        '0.7',
        '--sub-top-p',
        '0.9',
        '--log-dir',
        join(dir, 'logs'),
        '--json',
      ],
      { RLM_TEST_SUB_KEY: 'sub-secret' },
    );
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as {
      stopReason: string;
      logFile: string | null;
      usage: { byModel: Record<string, { calls: number; costUsd: number | null }> };
    };
    expect(out.stopReason).toBe('answered');
    // The log records what each role sent besides the model and the messages.
    const starts = readFileSync(out.logFile ?? '', 'utf8')
      .split('\n')
      .filter((l) => l.includes('"run.start"'))
      .map((l) => JSON.parse(l) as { sampling?: unknown });
    expect(starts.length).toBeGreaterThanOrEqual(1);
    for (const e of starts)
      expect(e.sampling).toEqual({
        turns: { temperature: 0.2, seed: 11, max_completion_tokens: 900 },
        subcalls: { temperature: 0.7, top_p: 0.9 },
      });
    const onRoot = read(rootRecord());
    const onSub = read(subRecord());
    expect(onRoot.length).toBeGreaterThanOrEqual(2);
    for (const r of onRoot) {
      expect(r.model).toBe('mock-root');
      expect(r.messages[0]?.role).toBe('system');
      expect(r.params).toMatchObject({ temperature: 0.2, seed: 11, max_completion_tokens: 900 });
      expect(r.params).not.toHaveProperty('top_p');
    }
    expect(onSub.length).toBeGreaterThanOrEqual(1);
    for (const r of onSub) {
      expect(r.model).toBe('mock-sub');
      expect(r.messages).toHaveLength(1);
      // Another endpoint: only the --sub-… settings, not the root's.
      expect(r.params).toMatchObject({ temperature: 0.7, top_p: 0.9 });
      expect(r.params).not.toHaveProperty('seed');
      expect(r.params).not.toHaveProperty('max_completion_tokens');
    }
    // Usage per model: the two models' calls add up to the total.
    expect(out.usage.byModel['mock-root']?.calls).toBe(onRoot.length);
    expect(out.usage.byModel['mock-sub']?.calls).toBe(onSub.length);
    expect(out.usage.byModel['mock-sub']?.costUsd).toBeGreaterThan(0);
  });

  it.each([
    [['--temperature', '-1'], '--temperature must be a number ≥ 0'],
    [['--sub-temperature', 'hot'], '--sub-temperature must be a finite number'],
    [['--seed', '1.5'], '--seed must be an integer'],
    [['--sub-top-p', '1.5'], '--sub-top-p must be a number in (0, 1]'],
    [['--max-output-tokens', '0'], '--max-output-tokens must be a positive integer'],
    [['--sub-base-url', 'not a url'], '--sub-base-url must be an http(s) URL'],
    [
      ['--sub-base-url', 'http://127.0.0.1:2/v1', '--sub-api-key-env', 'RLM_TEST_SURELY_UNSET_VAR'],
      '--sub-api-key-env RLM_TEST_SURELY_UNSET_VAR: that environment variable is not set',
    ],
  ])('refuses %j naming the flag', async (args, message) => {
    const res = await runCli([...base(), ...args]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(message);
    expect(res.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
