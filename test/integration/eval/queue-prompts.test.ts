// `eval --queue --prompts PACK` (issue 37): the pack travels whole to the workers, whose
// sessions send the pack's texts, record its name and hash in run.start, and, as the CLI does
// under a reference pack, ask for whole replies: the requests carry no `stream` field. A real
// redis-server and worker process; the requests are recorded at an in-process mock-llm.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { readResults } from '../../../src-main/eval/results.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { packHash, type PromptPack } from '../../../src-main/lm/prompt-pack.ts';
import type { Policy } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { markerPack } from '../../support/marker-pack.ts';
import { startCli, type RunningCli } from '../support/cli.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-queue-prompts-'));
let redis: TestRedis;
let worker: RunningCli;
let workerErr = '';

beforeAll(async () => {
  redis = await startRedis();
  worker = startCli(['worker', '--queue', redis.url, '--concurrency', '1']);
  worker.child.stderr!.on('data', (d: string) => (workerErr += d));
});

afterAll(async () => {
  if (worker && worker.child.exitCode === null) worker.child.kill('SIGTERM');
  await worker?.done;
  await redis?.stop();
});

const submit = '```repl\nanswer["content"] = "blue"\nanswer["ready"] = True\n```';

async function queuedEval(pack: PromptPack, name: string, extra: string[] = []): Promise<{ server: MockLlmServer; out: string }> {
  const dir = mkdtempSync(join(tmp, `${name}-`));
  const packFile = join(dir, 'pack.json');
  writeFileSync(packFile, JSON.stringify(pack));
  writeFileSync(
    join(dir, 'ds.jsonl'),
    `${JSON.stringify({ id: 'colour', kind: 'custom', query: 'Which colour?', expected: 'blue', scorer: 'exact', context: 'The sky is blue.' })}\n`,
  );
  // Answers only a root turn made of the pack's texts; anything else gets a reply that submits nothing.
  const policy: Policy = (req) => (req.messages[0]?.content.startsWith('«system»') ? submit : 'not a turn of the pack');
  const server = await startMockLlm({ policy, prompts: pack, recordRequests: true, recordTexts: true });
  const out = join(dir, 'out');
  const args = ['eval', join(dir, 'ds.jsonl'), '--queue', redis.url, '--base-url', server.url, '--model', 'mock-root'];
  const c = startCli([...args, '--out', out, '--no-progress', '--repl', 'python', '--prompts', packFile, ...extra]);
  let err = '';
  c.child.stderr!.on('data', (d: string) => (err += d));
  const res = await c.done;
  expect(res.code, `${err}\nworker: ${workerErr}`).toBe(0);
  return { server, out };
}

describe('eval --queue --prompts', () => {
  it("a worker's session sends the pack's texts, records the pack, and does not stream under a reference pack", async () => {
    const pack = markerPack('python');
    expect(pack.semantics).toBe('reference');
    const { server, out } = await queuedEval(pack, 'reference');
    try {
      const [result] = readResults(join(out, 'results.jsonl')).results;
      expect(result).toMatchObject({ id: 'colour', answer: 'blue', correct: true });
      const requests = server.requests();
      expect(requests).toHaveLength(1);
      const [req] = requests;
      expect(req!.messages.map((m) => m.role)).toEqual(['system', 'user', 'user']);
      expect(req!.messages[0]!.content).toMatch(/^«system»/);
      expect(req!.messages[1]!.content).toMatch(/^«metadataQuery»Which colour\?«metadataQuery\.query»«metadata»/);
      expect(req!.messages[2]!.content).toMatch(/^«turnFirst»/);
      // A whole reply was asked for: the body has no stream field at all, as the reference's.
      expect(Object.keys(req!.params)).not.toContain('stream');
      expect(Object.keys(req!.params)).not.toContain('stream_options');
      const log = await readLogFile(result!.logFile!);
      const start = log.events.find((e): e is Extract<TrajectoryEvent, { type: 'run.start' }> => e.type === 'run.start');
      expect(start?.prompts).toEqual({ name: 'markers-python', hash: packHash(pack) });
      expect(JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8'))).toMatchObject({
        prompts: { name: 'markers-python', hash: packHash(pack) },
      });
    } finally {
      await server.close();
    }
  });

  it('--stream on the coordinator streams on the workers, even under a reference pack', async () => {
    const pack = markerPack('python');
    const { server, out } = await queuedEval(pack, 'streamed', ['--stream']);
    try {
      expect(readResults(join(out, 'results.jsonl')).results[0]).toMatchObject({ correct: true });
      const [req] = server.requests();
      expect(req!.params['stream']).toBe(true);
    } finally {
      await server.close();
    }
  });
});
