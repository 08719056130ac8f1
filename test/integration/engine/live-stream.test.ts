// No reply text lost or doubled between the stream, the log and the view (issue 38): 1,000
// replies streamed in pieces of random sizes (the mock's seeded chunking, multi-byte text
// included) go through the engine's live sink into the app's store of streaming replies.
// When each model.reply is logged, what the view had joined is exactly the logged text;
// the entry then goes, and pieces arriving late for it start nothing.
import { describe, expect, it } from 'vitest';
import type { LiveReplyDelta } from '../../../src-shared/live-reply.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { startMockLlm } from '../../../src-main/mock-llm/server.ts';
import { createLiveRepliesStore, liveKey } from '../../../src-renderer/store/live-replies.ts';
import { turns } from './harness.ts';

const PIECES = ['alpha ', 'βeta ', 'γάμμα ', '😀 ', '\\n', 'line\n', '```text\nnot code\n```\n', '"quoted" ', 'tab\t', 'ü'];

/** A reply of 1-400 characters, different for every turn and completion, no code until the last turn. */
function replyFor(completion: number, turn: number): string {
  let x = (completion * 7919 + turn * 104_729) >>> 0;
  const n = 1 + (x % 60);
  const out: string[] = [`reply ${completion}/${turn}: `];
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    out.push(PIECES[x % PIECES.length]!);
  }
  return out.join('');
}

describe('live replies: stream, log and view agree', () => {
  it('on 1,000 streamed replies with random chunking', async () => {
    const COMPLETIONS = 100;
    const TURNS = 10;
    const server = await startMockLlm({
      streamChunkChars: 9,
      streamChunkSeed: 20_261_207,
      policy: turns((t, req) => {
        const completion = Number(/completion (\d+)/.exec(req.messages.map((m) => m.content).join('\n'))?.[1] ?? -1);
        const text = replyFor(completion, t);
        return t < TURNS ? text : `${text}\n\`\`\`repl\nanswer.content = "done ${completion}"; answer.ready = true;\n\`\`\``;
      }),
    });
    try {
      const client = new OpenAiCompatibleClient({ baseUrl: server.url, maxRetries: 0 });
      const useLiveReplies = createLiveRepliesStore(() => true);
      const store = useLiveReplies.getState();
      let replies = 0;
      let deltas = 0;
      let lastDelta: LiveReplyDelta | null = null;
      const sessionId = 'live-test';
      const recorder = new EventRecorder((e) => {
        if (e.type === 'model.reply') {
          replies++;
          const seen = useLiveReplies
            .getState()
            .bySession.get(sessionId)
            ?.get(liveKey(e.runId, e.iteration, e.purpose));
          expect(seen?.content).toBe(e.text);
          expect(seen?.tokens).toBe(Math.ceil(e.text.length / 4));
        }
        useLiveReplies.getState().settle(sessionId, [e]);
        if (e.type === 'model.reply') {
          expect(
            useLiveReplies
              .getState()
              .bySession.get(sessionId)
              ?.has(liveKey(e.runId, e.iteration, e.purpose)),
          ).toBe(false);
          // A piece of this call that arrives after its reply starts nothing.
          if (lastDelta) store.add(sessionId, [lastDelta]);
          expect(
            useLiveReplies
              .getState()
              .bySession.get(sessionId)
              ?.has(liveKey(e.runId, e.iteration, e.purpose)),
          ).toBe(false);
        }
      });
      const session = new RlmConversation(
        { client, model: 'mock-root', maxIterations: TURNS },
        {
          sink: recorder,
          persistent: false,
          live: {
            delta: (d) => {
              deltas++;
              lastDelta = d;
              useLiveReplies.getState().add(sessionId, [d]);
            },
          },
        },
      );
      for (let c = 0; c < COMPLETIONS; c++) {
        const out = await session.completion(`context of completion ${c}`, `completion ${c}`);
        expect(out.answer).toBe(`done ${c}`);
      }
      session.close();
      expect(replies).toBe(COMPLETIONS * TURNS);
      // Random chunking: on average well over one piece per reply.
      expect(deltas).toBeGreaterThan(replies * 3);
      expect(useLiveReplies.getState().bySession.get(sessionId)?.size ?? 0).toBe(0);
    } finally {
      await server.close();
    }
  }, 600_000);
});
