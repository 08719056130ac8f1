// The reply of the iteration being written, growing as its pieces stream in, with the tokens
// so far and the rate. It is replaced by the logged reply when that arrives.
import { splitThink } from '../../src-shared/think.ts';
import { tokensPerSecond } from '../../src-shared/live-reply.ts';
import { useLiveReplies } from '../app/context.tsx';
import { liveReplyOf } from '../store/live-replies.ts';

export function LiveReplyView({ sessionId, runId, iteration }: { sessionId: string; runId: string; iteration: number }) {
  const live = useLiveReplies((s) => liveReplyOf(s, sessionId, runId, iteration));
  if (!live) return null;
  const think = splitThink(live.content);
  const reasoning = live.reasoning + (think ? think.reasoning : '');
  const text = think ? think.text : live.content;
  const rate = tokensPerSecond(live.tokens, live.elapsedMs);
  return (
    <div className="reply live" data-testid="live-reply">
      <h4>
        Model reply, streaming{' '}
        <small data-testid="live-reply-rate">
          ({live.model} · {live.tokens.toLocaleString('en-US')} tok so far
          {rate !== null ? ` · ${rate.toFixed(1)} tok/s` : ''}
          {live.purpose !== 'turn' ? ` · ${live.purpose}` : ''})
        </small>
      </h4>
      {reasoning ? (
        <details className="reasoning" open={text === ''}>
          <summary>Thinking…</summary>
          <pre data-testid="live-reasoning">{reasoning}</pre>
        </details>
      ) : null}
      <pre className="text-block" data-testid="live-reply-text">
        {text}
      </pre>
    </div>
  );
}
