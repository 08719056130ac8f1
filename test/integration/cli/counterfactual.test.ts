// `rlm-studio counterfactual`: one recorded plain call of a reference log re-run against
// mock-llm with an edited prompt, recorded beside the log (the log untouched), then listed.
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CounterfactualRecord } from '../../../src-shared/analysis/counterfactual.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
beforeAll(async () => {
  mock = await startMockProcess();
});
afterAll(async () => {
  await mock.close();
});

describe('rlm-studio counterfactual', () => {
  it('re-runs a call with an edited prompt, records it beside the log, lists it, and refuses bad input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-cf-cli-'));
    const log = join(dir, 'g_openai_http.jsonl');
    copyFileSync(join(REFERENCE_FIXTURES, 'g_openai_http.jsonl'), log);
    const env = { RLM_STUDIO_RUNS: join(dir, 'runs') };
    const r = await runCli(
      [
        'counterfactual',
        log,
        '--call',
        'r0:2.0.0',
        '--prompt',
        'TASK: find-number\nTEXT:\nthe magic number is 4242',
        '--base-url',
        mock.url,
        '--json',
      ],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const record = JSON.parse(r.stdout) as CounterfactualRecord;
    expect(record).toMatchObject({
      status: 'done',
      call: { callId: 'r0:2.0.0', response: 'YES: 7-ALPHA-2931' },
      result: { response: '4242' },
    });
    expect(readFileSync(join(dir, 'g_openai_http.rlm.counterfactuals.ndjson'), 'utf8')).toContain(record.id);
    expect(readFileSync(log).equals(readFileSync(join(REFERENCE_FIXTURES, 'g_openai_http.jsonl')))).toBe(true);

    const listed = await runCli(['counterfactual', log, '--list'], env);
    // Blocks counted from 0 in the text, as in the callId and in --json (issue 40).
    expect(listed.stdout).toContain(`counterfactual ${record.id} of r0:2.0.0 (r0 iteration 2 block ${record.call.block}): done`);
    expect(record.call.block).toBe(0);
    expect(listed.stdout).toContain('recorded (mock-sub): YES: 7-ALPHA-2931');
    expect(listed.stdout).toContain('new (mock-sub, edited prompt): 4242');

    const bad = await runCli(['counterfactual', log, '--call', 'nope', '--base-url', mock.url], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no sub-call nope/);
    const noUrl = await runCli(['counterfactual', log, '--call', 'r0:2.0.0'], env);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--base-url/);
  });

  it('after a torn last line in the sidecar, the new record is its own line and is listed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-cf-torn-'));
    const log = join(dir, 'g_openai_http.jsonl');
    copyFileSync(join(REFERENCE_FIXTURES, 'g_openai_http.jsonl'), log);
    // What a kill in the middle of an earlier append leaves.
    appendFileSync(join(dir, 'g_openai_http.rlm.counterfactuals.ndjson'), '{"v":1,"id":"cut-off","st');
    const env = { RLM_STUDIO_RUNS: join(dir, 'runs') };
    const r = await runCli(
      ['counterfactual', log, '--call', 'r0:2.0.0', '--prompt', 'TASK: find-number\nTEXT:\n7', '--base-url', mock.url, '--json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const record = JSON.parse(r.stdout) as CounterfactualRecord;
    const listed = await runCli(['counterfactual', log, '--list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as CounterfactualRecord[]).map((x) => x.id)).toEqual([record.id]);
  });

  it('against an endpoint that cannot be reached: a clear error at once, nothing recorded (issue 40)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-cf-down-'));
    const log = join(dir, 'g_openai_http.jsonl');
    copyFileSync(join(REFERENCE_FIXTURES, 'g_openai_http.jsonl'), log);
    const env = { RLM_STUDIO_RUNS: join(dir, 'runs') };
    // A port nothing listens on (a typo of the mock's): connection refused.
    const down = await runCli(['counterfactual', log, '--call', 'r0:2.0.0', '--base-url', 'http://127.0.0.1:2/v1'], env);
    expect(down.code, down.stderr).toBe(2);
    expect(down.stderr).toMatch(/LM endpoint http:\/\/127\.0\.0\.1:2\/v1 is unreachable: .*; nothing was recorded/);
    // One request, not the SDK's five.
    expect(down.stderr).not.toMatch(/after \d+ attempts/);
    expect(existsSync(join(dir, 'g_openai_http.rlm.counterfactuals.ndjson'))).toBe(false);
    const listed = await runCli(['counterfactual', log, '--list', '--json'], env);
    expect(JSON.parse(listed.stdout)).toEqual([]);
    // A path the endpoint does not serve (a base URL without /v1): the same, not a recorded result.
    const wrongPath = await runCli(['counterfactual', log, '--call', 'r0:2.0.0', '--base-url', mock.url.replace(/\/v1$/, '/nope')], env);
    expect(wrongPath.code, wrongPath.stderr).toBe(2);
    expect(wrongPath.stderr).toMatch(/returned 404.*; nothing was recorded/);
    expect(existsSync(join(dir, 'g_openai_http.rlm.counterfactuals.ndjson'))).toBe(false);
  });
});
