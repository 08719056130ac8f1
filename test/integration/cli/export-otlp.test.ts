// `rlm-studio export-otlp` and `serve --otlp-endpoint`, through the real commands, against an
// OTLP/HTTP receiver of our own: what arrives is checked span by span.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { connectWs, demoStart, wsUrlOf } from '../host/helpers.ts';
import { runCli, startCli } from '../support/cli.ts';
import { type OtlpJsonRequest, type OtlpJsonSpan, type OtlpReceiver, spansOf, startOtlpReceiver } from '../support/otlp-receiver.ts';

const C_RECURSIVE = join(REFERENCE_FIXTURES, 'c_recursive.jsonl');
const attr = (s: OtlpJsonSpan, k: string): unknown => {
  const v = s.attributes.find((a) => a.key === k)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
};
const key = (s: OtlpJsonSpan): string =>
  `${s.traceId}/${s.spanId}/${s.parentSpanId ?? ''}/${s.name}/${s.startTimeUnixNano}/${s.endTimeUnixNano}`;

describe('rlm-studio export-otlp', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rlm-export-otlp-'));
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('sends a reference log to a collector with the given headers, and writes the same spans as OTLP/JSON', async () => {
    receiver.requests.length = 0;
    const r = await runCli([
      'export-otlp',
      C_RECURSIVE,
      '--endpoint',
      receiver.url,
      '--header',
      'Authorization=Bearer secret',
      '--header',
      'x-tenant=lab',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ logs: 1, traces: 1, spans: 36 });
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const q of receiver.requests) {
      expect(q.method).toBe('POST');
      expect(q.path).toBe('/v1/traces');
      expect(q.headers['authorization']).toBe('Bearer secret');
      expect(q.headers['x-tenant']).toBe('lab');
      expect(q.headers['content-type']).toMatch(/application\/json/);
    }
    const sent = receiver.spans();
    expect(sent).toHaveLength(36);
    const byId = new Map(sent.map((s) => [s.spanId, s]));
    const runs = sent.filter((s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent');
    expect(runs).toHaveLength(4);
    const root = runs.filter((s) => s.parentSpanId === undefined || s.parentSpanId === '');
    expect(root).toHaveLength(1);
    for (const c of runs.filter((s) => s !== root[0])) expect(byId.get(c.parentSpanId!)?.name).toBe('execute_tool repl');
    expect(sent.filter((s) => attr(s, 'gen_ai.operation.name') === 'execute_tool')).toHaveLength(13);
    const chats = sent.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
    expect(chats).toHaveLength(19);
    expect(
      chats.every((s) => attr(s, 'gen_ai.request.model') === 'mock-root' && typeof attr(s, 'gen_ai.usage.input_tokens') !== 'undefined'),
    ).toBe(true);
    // Recorded times (December 2026 in the fixture), not the time of the export.
    expect(new Date(Number(BigInt(root[0]!.startTimeUnixNano) / 1_000_000n)).toISOString()).toBe('2026-12-02T09:30:59.157Z');

    const file = join(tmp, 'traces.json');
    const w = await runCli(['export-otlp', C_RECURSIVE, '-o', file]);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).toMatch(/wrote 36 span\(s\) in 1 trace\(s\) from 1 log\(s\)/);
    const written = spansOf(JSON.parse(readFileSync(file, 'utf8')) as OtlpJsonRequest);
    // The same ids and times both ways, and on every export.
    expect(written.map(key).sort()).toEqual(sent.map(key).sort());
  });

  it('leaves the content out with --no-content', async () => {
    const file = join(tmp, 'bare.json');
    const w = await runCli(['export-otlp', C_RECURSIVE, '-o', file, '--no-content']);
    expect(w.code, w.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('gen_ai.input.messages');
    expect(text).not.toContain('gen_ai.tool.call.arguments');
    expect(spansOf(JSON.parse(text) as OtlpJsonRequest)).toHaveLength(36);
  });

  it('never overwrites an output file', async () => {
    const file = join(tmp, 'exists.json');
    writeFileSync(file, 'keep me');
    const r = await runCli(['export-otlp', C_RECURSIVE, '-o', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/already exists; refusing to overwrite/);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
  });

  it('names bad arguments, unreadable logs and a collector that refuses', async () => {
    const notUrl = await runCli(['export-otlp', C_RECURSIVE, '--endpoint', 'localhost 4318']);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toMatch(/--endpoint "localhost 4318" is not a URL/);
    const ftp = await runCli(['export-otlp', C_RECURSIVE, '--endpoint', 'ftp://127.0.0.1/']);
    expect(ftp.stderr).toMatch(/needs an http: or https: URL/);
    const both = await runCli(['export-otlp', C_RECURSIVE, '--endpoint', receiver.url, '-o', join(tmp, 'x.json')]);
    expect(both.stderr).toMatch(/either --endpoint URL .* or -o FILE/);
    const header = await runCli(['export-otlp', C_RECURSIVE, '--endpoint', receiver.url, '--header', 'novalue']);
    expect(header.stderr).toMatch(/--header "novalue": expected NAME=VALUE/);
    const missing = await runCli(['export-otlp', join(tmp, 'nope.jsonl'), '--endpoint', receiver.url]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.jsonl: no such file or folder/);

    receiver.respondWith(400);
    try {
      const refused = await runCli(['export-otlp', C_RECURSIVE, '--endpoint', receiver.url]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/\/v1\/traces: the collector did not take the spans of .*c_recursive\.jsonl/);
    } finally {
      receiver.respondWith(200);
    }
  });
});

describe('rlm-studio serve --otlp-endpoint', () => {
  it('streams a live session as it runs: the spans export-otlp makes from its log', async () => {
    const receiver = await startOtlpReceiver();
    const root = mkdtempSync(join(tmpdir(), 'rlm-serve-otlp-'));
    const served = startCli([
      'serve',
      '--port',
      '0',
      '--runs-dir',
      join(root, 'runs'),
      '--settings-dir',
      join(root, 'settings'),
      '--static',
      join(root, 'no-ui'),
      '--demo-latency-ms',
      '5',
      '--otlp-endpoint',
      `${receiver.url}/v1/traces`,
      '--otlp-header',
      'Authorization=Basic abc',
    ]);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: served.child.stdout! }).on('line', (l) => {
          const m = /serving at (\S+)/.exec(l);
          if (m) resolve(m[1]!);
        });
        served.child.once('exit', (code) => reject(new Error(`serve exited early (${code})`)));
      });
      const ws = await connectWs(wsUrlOf(url));
      const { session } = await ws.call('session.start', demoStart('recursive'));
      const done = await ws.status(session.sessionId, 'finished');
      // Spans go out as they end, while the server keeps running: wait for the root run's.
      const deadline = Date.now() + 20_000;
      const rootArrived = (): boolean =>
        receiver.spans().some((s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent' && !s.parentSpanId);
      while (!rootArrived() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(rootArrived()).toBe(true);
      ws.closeCarrier();
      expect(receiver.requests.every((q) => q.path === '/v1/traces' && q.headers['authorization'] === 'Basic abc')).toBe(true);
      const live = receiver.spans();
      expect(live.every((s) => attr(s, 'gen_ai.conversation.id') === session.sessionId)).toBe(true);
      expect(live.some((s) => attr(s, 'rlm.unfinished') === true)).toBe(false);

      const file = join(root, 'from-log.json');
      const r = await runCli(['export-otlp', done.logFile!, '-o', file]);
      expect(r.code, r.stderr).toBe(0);
      const fromLog = spansOf(JSON.parse(readFileSync(file, 'utf8')) as OtlpJsonRequest);
      expect(fromLog.length).toBeGreaterThan(5);
      expect(fromLog.some((s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent' && s.parentSpanId)).toBe(true);
      expect(live.map(key).sort()).toEqual(fromLog.map(key).sort());
    } finally {
      served.child.kill('SIGTERM');
      await served.done;
      await receiver.close();
    }
  });
});
