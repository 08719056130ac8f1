// The mock-llm server's HTTP surface, spoken to with plain fetch and raw sockets.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startMockLlm } from '../../../src-main/mock-llm/server.ts';
import type { MockLlmServer } from '../../../src-main/mock-llm/server.ts';

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(opts: Parameters<typeof startMockLlm>[0] = {}): Promise<MockLlmServer> {
  const s = await startMockLlm(opts);
  servers.push(s);
  return s;
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('mock-llm HTTP surface', () => {
  it('records what each chat request asked for (not the texts), in memory and to a file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mock-rec-')), 'requests.jsonl');
    const s = await serve({ recordRequests: true, recordFile: file });
    await post(s.url, {
      model: 'mock-sub',
      messages: [{ role: 'user', content: 'TASK: summarise\nTEXT:\nabc' }],
      temperature: 0.5,
      seed: 3,
      max_completion_tokens: 9,
    });
    await post(s.url, {
      model: 'mock-root',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
      ],
      stream: false,
    });
    await post(s.url, '{not json'); // refused before it is read: not recorded
    const want = [
      { n: 1, model: 'mock-sub', params: { temperature: 0.5, seed: 3, max_completion_tokens: 9 }, messages: [{ role: 'user', chars: 25 }] },
      {
        n: 2,
        model: 'mock-root',
        params: { stream: false },
        messages: [
          { role: 'system', chars: 3 },
          { role: 'user', chars: 2 },
        ],
      },
    ];
    expect(s.requests()).toEqual(want);
    expect(
      readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(want);
    // Without the option nothing is kept.
    const quiet = await serve();
    await post(quiet.url, { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(quiet.requests()).toEqual([]);
  });

  it('listens on a random port and gives a base URL ending in /v1', async () => {
    const s = await serve();
    expect(s.port).toBeGreaterThan(0);
    expect(s.url).toBe(`http://127.0.0.1:${s.port}/v1`);
  });

  it('lists models', async () => {
    const s = await serve();
    const res = await fetch(`${s.url}/models`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { object: string; data: { id: string }[] };
    expect(body.object).toBe('list');
    expect(body.data.map((m) => m.id)).toContain('mock-llm');
  });

  it('answers unknown paths with a JSON 404', async () => {
    const s = await serve();
    const res = await fetch(`${s.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain('/v1/embeddings');
  });

  it('rejects malformed bodies with a 400 that names the problem', async () => {
    const s = await serve();
    const cases: [unknown, RegExp][] = [
      ['{not json', /not valid JSON/],
      [{ messages: [{ role: 'user', content: 'hi' }] }, /model/],
      [{ model: 'm', messages: [] }, /messages/],
      [{ model: 'm', messages: 'hi' }, /messages/],
    ];
    for (const [body, pattern] of cases) {
      const res = await post(s.url, body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as { error: { message: string } };
      expect(json.error.message).toMatch(pattern);
    }
  });

  it('streams SSE chunks, a usage chunk when asked, then [DONE]', async () => {
    const s = await serve();
    const res = await post(s.url, {
      model: 'mock-llm',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'TASK: count-labels\nITEMS:\nx || label: a' }],
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = (await res.text()).split('\n\n').filter((e) => e !== '');
    expect(events.every((e) => e.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[]; usage?: unknown });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('{"a":1}');
    const promptTokens = Math.ceil('TASK: count-labels\nITEMS:\nx || label: a'.length / 4);
    expect(chunks.at(-1)?.usage).toEqual({ prompt_tokens: promptTokens, completion_tokens: 2, total_tokens: promptTokens + 2 });
  });

  it('accepts content given as an array of text parts', async () => {
    const s = await serve();
    const res = await post(s.url, {
      model: 'mock-llm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'TASK: count-labels\nITEMS:\n' },
            { type: 'text', text: 'x || label: b' },
          ],
        },
      ],
    });
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('{"b":1}');
  });

  it('survives clients that disconnect mid-request and mid-wait', async () => {
    const s = await serve({ latencyMs: 10_000 });
    // Half a body, then hang up.
    await rawHangUp(
      s.port,
      'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":',
    );
    // A full request, then hang up while the server waits out its latency.
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    await rawHangUp(
      s.port,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    for (let i = 0; i < 200 && s.stats().aborted < 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(s.stats().aborted).toBe(2);
    expect(s.stats().inFlight).toBe(0);
    const models = await fetch(`${s.url}/models`);
    expect(models.status).toBe(200);
  });
});

describe('rlm-studio mock-llm command', () => {
  it('prints the listening line, serves, and exits on SIGTERM', async () => {
    const command = fileURLToPath(new URL('../../../src-main/cli/commands/mock-llm.ts', import.meta.url));
    const program = `import { Command } from 'commander'; import { registerMockLlm } from ${JSON.stringify(command)};
const p = new Command(); registerMockLlm(p); await p.parseAsync(['node', 'x', 'mock-llm', '--port', '0', '--cost-per-mtok', '2']);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const m = /^mock-llm listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(line);
    expect(m).not.toBeNull();
    const res = await post(m![1]!, {
      model: 'mock-llm',
      messages: [{ role: 'user', content: 'TASK: count-labels\nITEMS:\nx || label: a' }],
    });
    const body = (await res.json()) as { usage: { cost: number } };
    expect(body.usage.cost).toBeGreaterThan(0);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

function rawHangUp(port: number, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () => {
      sock.write(text, () =>
        setTimeout(() => {
          sock.destroy();
          resolve();
        }, 50),
      );
    });
    sock.on('error', reject);
  });
}
