// The live streamer behind `serve --otlp-endpoint`: spans go out as they end, a collector that
// refuses is reported once per streak, and closing sends the spans of unfinished sessions.
import { describe, expect, it } from 'vitest';
import { OtlpLiveExporter } from '../../../src-main/export/otlp-live.ts';
import { scenario } from '../../unit/trajectory/synthetic.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';

describe('OtlpLiveExporter', () => {
  it('sends ended spans, warns once while the collector refuses, and ends open runs on close', async () => {
    const receiver = await startOtlpReceiver();
    const warnings: string[] = [];
    const live = new OtlpLiveExporter({
      endpoint: receiver.url,
      headers: { 'x-key': 'k' },
      content: false,
      delayMs: 10,
      warn: (m) => void warnings.push(m),
    });
    try {
      const events = scenario().events;
      // Events arrive in pieces, as the host receives them from a worker.
      for (let i = 0; i < events.length; i += 7) live.push('A', events.slice(i, i + 7));
      await live.flush();
      expect(receiver.spans()).toHaveLength(23);
      expect(receiver.requests.every((q) => q.headers['x-key'] === 'k')).toBe(true);
      expect(warnings).toEqual([]);

      receiver.respondWith(400);
      live.push('B', events.slice(0, 20));
      await live.flush();
      live.push('B', events.slice(20, 40));
      await live.flush();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/OTLP collector http:\/\/127\.0\.0\.1:\d+\/v1\/traces did not take \d+ span\(s\)/);

      receiver.respondWith(200);
      const before = receiver.spans().length;
      const cut = events.findIndex((e) => e.type === 'block.start' && e.runId === 'root0' && e.iteration === 2);
      live.push('C', events.slice(0, cut + 1));
      await live.close();
      const closed = receiver.spans().slice(before);
      const inC = closed.filter((s) => s.attributes.some((a) => a.key === 'gen_ai.conversation.id' && a.value['stringValue'] === 'C'));
      const unfinished = inC.filter((s) => s.attributes.some((a) => a.key === 'rlm.unfinished'));
      expect(unfinished.map((s) => s.name).sort()).toEqual(['execute_tool repl', 'invoke_agent rlm']);
      // B was cut short too: its open spans go out on close as well.
      expect(closed.some((s) => s.attributes.some((a) => a.key === 'gen_ai.conversation.id' && a.value['stringValue'] === 'B'))).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
