// What comes with a model's reply besides its text: its thinking (collapsed), a cut by the
// output-token cap, the share of its input the provider served from cache.
import type { ReplyReasoning, Usage } from '../../src-shared/events.ts';
import { TextBlock } from './TextBlock.tsx';

const SOURCE_WORDS: Record<ReplyReasoning['source'], string> = {
  reasoning_content: 'reasoning_content',
  reasoning: 'reasoning',
  think: '<think> in the content',
};

/** The model's thinking, collapsed: open it to read. */
export function ReasoningBox({ reasoning, testId = 'reasoning' }: { reasoning: ReplyReasoning; testId?: string }) {
  const tokens = Math.ceil(reasoning.text.length / 4);
  return (
    <details className="reasoning" data-testid={testId}>
      <summary
        title={`Sent by the endpoint as ${SOURCE_WORDS[reasoning.source]}${reasoning.inText ? ', and read as part of the reply' : ''}`}
      >
        Thinking ({tokens.toLocaleString('en-US')} tok, {SOURCE_WORDS[reasoning.source]})
      </summary>
      <TextBlock text={reasoning.text} testId={`${testId}-text`} />
    </details>
  );
}

/** A reply the output-token cap cut off. */
export function CutNote({ finishReason, testId = 'reply-cut' }: { finishReason: string | undefined; testId?: string }) {
  if (finishReason !== 'length') return null;
  return (
    <span
      className="badge warn"
      data-testid={testId}
      title="finish_reason 'length': the reply reached the output-token cap and was cut off"
    >
      cut by the token cap
    </span>
  );
}

/** " · 83% cached": the share of a call's input the provider served from its prompt cache. */
export function cachedShareText(u: Pick<Usage, 'inputTokens' | 'cachedInputTokens'>): string {
  if (!u.cachedInputTokens || u.inputTokens <= 0) return '';
  return ` · ${Math.round((100 * u.cachedInputTokens) / u.inputTokens)}% cached`;
}
