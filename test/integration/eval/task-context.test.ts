// An evaluation's logs find their context through the evaluation (eval/task-context.ts): from a
// real run of the runner against mock-llm, every task log's context is its task's (inline text,
// inline JSON, or a file beside the dataset); `coverage` and `rerun` need no --context for such
// a log and give what they give with it; the host serves it to the app's coverage map and
// re-executes the log on it; logs that are not an evaluation's, or whose dataset is gone, say why.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCoverage, runEvaluationCoverage } from '../../../src-main/cli/commands/coverage.ts';
import { runRerun } from '../../../src-main/cli/commands/rerun.ts';
import { UsageError } from '../../../src-main/cli/errors.ts';
import { writeDataset } from '../../../src-main/cli/dataset-file.ts';
import type { TaskResult } from '../../../src-main/eval/results.ts';
import { runEval } from '../../../src-main/eval/runner.ts';
import { evalTaskContext } from '../../../src-main/eval/task-context.ts';
import type { EvalTask } from '../../../src-main/eval/tasks/types.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { connectInProcess, makeHost } from '../host/helpers.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-task-context-'));
const out = join(tmp, 'results');
let server: MockLlmServer;
let tasks: EvalTask[];
let results: TaskResult[];

beforeAll(async () => {
  server = await startMockLlm({ latencyMs: 0, costPerMTok: 1 });
  // The smaller contexts inline (sniah's text, browsecomp's JSON documents), the bigger ones in files.
  tasks = await writeDataset({
    kinds: ['sniah', 'browsecomp'],
    sizes: [8192, 16384],
    seed: 3,
    count: 1,
    out: join(tmp, 'ds.jsonl'),
    inlineMaxChars: 40_000,
  });
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'x', maxRetries: 0 });
  await runEval({
    dataset: join(tmp, 'ds.jsonl'),
    outDir: out,
    client,
    baseUrl: server.url,
    model: 'mock-root',
    maxIterations: 4,
    parallel: 3,
  });
  results = readFileSync(join(out, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TaskResult);
}, 60_000);
afterAll(async () => {
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const logOf = (id: string): string => {
  const r = results.find((x) => x.id === id);
  if (!r?.logFile) throw new Error(`no log for ${id}`);
  return r.logFile;
};
const capture = () => {
  const text: string[] = [];
  return { io: { out: (t: string) => void text.push(t), err: (t: string) => void text.push(t) }, text };
};

describe("an evaluation log's context", () => {
  it("is its task's, however the dataset holds it", async () => {
    const kinds = new Set<string>();
    for (const task of tasks) {
      const found = await evalTaskContext(logOf(task.id));
      if (!found?.found) throw new Error(`not found for ${task.id}: ${found ? found.why : 'not an evaluation log'}`);
      expect(found.task.id).toBe(task.id);
      const c = found.source;
      kinds.add(c.kind);
      if (c.kind === 'file') expect(c.path).toBe(join(tmp, task.contextFile ?? '?'));
      else if (c.kind === 'text') expect(c.text).toBe(task.context);
      else if (c.kind === 'json') expect(JSON.parse(c.json)).toEqual(task.context);
      else throw new Error(`unexpected ${c.kind}`);
    }
    expect([...kinds].sort()).toEqual(['file', 'json', 'text']);
  });

  it('is found by its name when results.jsonl does not list it (a log set aside before a retry)', async () => {
    const aside = join(out, 'logs', `${tasks[0]!.id}.retried-1.rlm.jsonl`);
    copyFileSync(logOf(tasks[0]!.id), aside);
    const found = await evalTaskContext(aside);
    expect(found?.found && found.task.id).toBe(tasks[0]!.id);
  });

  it('gives `coverage` the figures it gives with the same context as a file', async () => {
    for (const task of tasks) {
      const found = await evalTaskContext(logOf(task.id));
      if (!found?.found) throw new Error('not found');
      const c = found.source;
      const file = c.kind === 'file' ? c.path : join(tmp, `${task.id}.context`);
      if (c.kind === 'text') writeFileSync(file, c.text);
      if (c.kind === 'json') writeFileSync(file, c.json);
      const given = await runCoverage(logOf(task.id), { context: file, json: true }, capture().io);
      const own = await runCoverage(logOf(task.id), { json: true }, capture().io);
      expect({ ...own, context: '' }).toEqual({ ...given, context: '' });
      expect(own.context).toBe(c.kind === 'file' ? c.path : `task ${task.id} of ${join(tmp, 'ds.jsonl')}`);
      expect(own.session.contextChars).toBeGreaterThan(1000);
    }
  });

  it('gives `coverage DIR` one row per task, the figures of each log, and the failures against the successes', async () => {
    const cap = capture();
    const e = await runEvaluationCoverage(out, { json: true }, cap.io);
    expect(e.tasks.map((t) => t.id).sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const row of e.tasks) {
      const one = await runCoverage(logOf(row.id), { json: true }, capture().io);
      expect(row).toMatchObject({ session: one.session, problem: null, correct: results.find((r) => r.id === row.id)!.correct });
    }
    expect(JSON.parse(cap.text.join(''))).toEqual(JSON.parse(JSON.stringify(e)));
    // The medians of the correct and the other tasks' unseen shares.
    for (const correct of [true, false]) {
      const xs = e.tasks.filter((t) => t.correct === correct).map((t) => t.session!.unseenChars / t.session!.contextChars);
      xs.sort((x, y) => x - y);
      const mid = xs.length === 0 ? null : xs.length % 2 ? xs[xs.length >> 1]! : (xs[xs.length / 2 - 1]! + xs[xs.length / 2]!) / 2;
      const got = e.unseen[correct ? 'correct' : 'incorrect'];
      expect(got.n).toBe(xs.length);
      if (mid === null) expect(got.median).toBeNull();
      else expect(got.median).toBeCloseTo(mid, 12);
    }
    const text = capture();
    await runEvaluationCoverage(out, {}, text.io);
    const printed = text.text.join('');
    expect(printed).toMatch(/^evaluation .*: 4 task\(s\); copies of at least \d+ characters are counted\n/);
    for (const t of tasks) expect(printed).toMatch(new RegExp(`\\n${t.id} +(yes|no) +[\\d,]+ +[\\d.]+% +[\\d.]+% +[\\d.]+% +[\\d.]+%\\n`));
    expect(printed).toMatch(/\nmedian unseen: correct [\d.]+% \(\d\), incorrect (none|[\d.]+% \(\d\))\n/);
  });

  it('lets `rerun` re-execute the log with every block the same', async () => {
    const r = await runRerun(logOf(tasks[0]!.id), { context: [], runsDir: join(tmp, 'reruns') });
    expect(r.blocks).toBeGreaterThan(0);
    expect([r.same, r.different]).toEqual([r.blocks, []]);
  }, 60_000);

  it('is served by the host for a task log it opened; a re-execution and a fork run on it', async () => {
    const host = makeHost();
    try {
      const c = connectInProcess(host);
      for (const task of tasks) {
        const { session } = await c.call('session.open', { path: logOf(task.id) });
        const served = host.contextOf(session.sessionId);
        if (task.context === undefined) expect(served).toMatchObject({ kind: 'file', path: join(tmp, task.contextFile ?? '?') });
        else if (typeof task.context === 'string')
          expect(served).toMatchObject({ kind: 'text', text: task.context, name: `${task.id}.txt` });
        else if (served?.kind === 'text') {
          expect(JSON.parse(served.text)).toEqual(task.context);
          expect(served.name).toBe(`${task.id}.json`);
        } else throw new Error(`served ${JSON.stringify(served)?.slice(0, 100)}`);
      }
      // eval.coverage gives what `coverage DIR` gives.
      const { coverage } = await c.call('eval.coverage', { path: out });
      expect(coverage).toEqual(await runEvaluationCoverage(out, { json: true }, capture().io));
      await expect(c.call('eval.coverage', { path: join(tmp, 'nope') })).rejects.toThrow(/no such directory/);
      const textTask = tasks.find((t) => typeof t.context === 'string')!;
      const { session: saved } = await c.call('session.open', { path: logOf(textTask.id) });
      const { session } = await c.call('session.rerun', { params: { sessionId: saved.sessionId } });
      const { end } = await c.ended(session.sessionId);
      expect(end.status).toBe('finished');
      expect(end.message).toMatch(/^re-executed \d+ block\(s\): (\d+) same, 0 different$/);
      // A fork from its first iteration, given no context, continues on the task's (the demo model answers).
      const { session: fork } = await c.call('session.fork', {
        params: { sessionId: saved.sessionId, runId: 'run-0', iteration: 1, profile: 'demo' },
      });
      const forked = await c.ended(fork.sessionId);
      expect(forked.end.status).toBe('finished');
      const start = forked.events.find((e) => e.type === 'run.start' && e.parentRunId === null);
      expect(start?.type === 'run.start' && start.context.type === 'string' ? start.context.totalChars : null).toBe(
        (textTask.context as string).length,
      );
    } finally {
      await host.close();
    }
  }, 60_000);
});

describe('logs whose context cannot be found that way', () => {
  it('a log outside an evaluation is not one; `coverage` and `rerun` then ask for --context', async () => {
    const loose = join(tmp, 'loose', 'logs');
    mkdirSync(loose, { recursive: true });
    const copy = join(loose, 'x.rlm.jsonl');
    copyFileSync(logOf(tasks[0]!.id), copy);
    expect(await evalTaskContext(copy)).toBeNull();
    await expect(runCoverage(copy, { json: true }, capture().io)).rejects.toThrow(/--context.*only an evaluation's logs/);
    await expect(runRerun(copy, { context: [] })).rejects.toBeInstanceOf(UsageError);
  });

  it('an evaluation whose dataset is gone says so, naming it', async () => {
    const moved = join(tmp, 'moved');
    mkdirSync(join(moved, 'logs'), { recursive: true });
    const meta = JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(moved, 'eval.json'), JSON.stringify({ ...meta, dataset: join(tmp, 'gone.jsonl') }));
    const log = join(moved, 'logs', `${tasks[0]!.id}.rlm.jsonl`);
    copyFileSync(logOf(tasks[0]!.id), log);
    const found = await evalTaskContext(log);
    expect(found).toMatchObject({ found: false });
    expect(found && !found.found && found.why).toMatch(/dataset cannot be read: .*gone\.jsonl/);
    await expect(runCoverage(log, { json: true }, capture().io)).rejects.toThrow(
      /no --context given, and the evaluation's dataset cannot be read/,
    );
    // Over the whole evaluation, each task says why it has no figures.
    writeFileSync(join(moved, 'results.jsonl'), `${JSON.stringify({ ...results[0], logFile: log })}\n`);
    const e = await runEvaluationCoverage(moved, { json: true }, capture().io);
    expect(e.tasks).toHaveLength(1);
    expect(e.tasks[0]).toMatchObject({ session: null, problem: expect.stringMatching(/gone\.jsonl/) as unknown });
  });

  it('a file that is not a log, with no --context, is reported as not a log', async () => {
    const bad = join(tmp, 'not-a-log.jsonl');
    writeFileSync(bad, 'not json\n');
    await expect(runCoverage(bad, {}, capture().io)).rejects.toThrow(/not a log this reader knows/);
  });
});
