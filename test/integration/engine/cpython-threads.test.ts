// `ThreadPoolExecutor(16).map(llm_query, …)` in the CPython REPL keeps 16 requests in flight at
// the model server: counted by mock-llm over real HTTP (its maxInFlight), with a latency long
// enough that a request still open when the next starts shows as concurrency.
import { describe, expect, it } from 'vitest';
import { classify } from '../../../src-main/mock-llm/policy.ts';
import { osSandboxSupport } from '../../../src-main/sandbox/os-sandbox/bwrap.ts';
import { harness, ofType, turns } from './harness.ts';

const THREADS = [
  'from concurrent.futures import ThreadPoolExecutor',
  'with ThreadPoolExecutor(16) as pool:',
  '    replies = list(pool.map(llm_query, [f"item {i}" for i in range(40)]))',
  'answer["content"] = str(sum(r.startswith("echo: item") for r in replies))',
  'answer["ready"] = True',
].join('\n');

describe.skipIf(!osSandboxSupport().ok)('threads in the CPython REPL', () => {
  it('keep 16 llm_query requests in flight at the server', { timeout: 120_000 }, async () => {
    const h = await harness(
      turns((_t, req) => (classify(req).query === null ? 'no' : '```repl\n' + THREADS + '\n```')),
      { repl: 'python', cpython: { python: '/usr/bin/python3' } },
      { latencyMs: 400 },
    );
    const out = await h.complete('c');
    expect(out.answer).toBe('40');
    expect(ofType(h.events, 'run.start')[0]!.sandbox?.layers).toContain('bwrap');
    expect(h.server.stats().maxInFlight).toBe(16);
  });
});
