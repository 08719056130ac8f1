// LM clients behind one interface: OpenAI-compatible over HTTP, or recorded replies.
import type { ChatMessage, ModelCallPurpose, ReplyReasoning, Usage } from '../../src-shared/events.ts';

export interface CompletionRequest {
  model: string;
  messages: ChatMessage[];
  /**
   * What the engine asks for: a turn, the final answer at the iteration limit, a compaction
   * summary, the depth-0 call. Never sent; a replay tells its calls apart by it, whatever
   * texts the run's prompt pack has.
   */
  purpose?: ModelCallPurpose;
  signal?: AbortSignal;
  /**
   * A hint that the request has gone out (its body is written), so the caller can use the
   * wait; called at most once, possibly late or for another request, or never.
   */
  onSent?: () => void;
  /** Called with each piece of a streamed reply as it arrives (thinking and reply text apart). */
  onDelta?: (delta: ReplyDelta) => void;
}

/** One streamed piece: text added to the reply and to its thinking (either may be ''). */
interface ReplyDelta {
  content: string;
  reasoning: string;
}

export interface CompletionResult {
  text: string;
  model: string;
  usage: Usage;
  latencyMs: number;
  /** Requests the endpoint refused or failed before this one answered (the client's retries); absent when none. */
  retries?: number;
  /**
   * The thinking the endpoint returned in a field of its own (`reasoning_content`,
   * `reasoning`), or a recorded reply's (replay); absent when none.
   */
  reasoning?: ReplyReasoning;
  /** Why the reply ended, as the endpoint said (`stop`, `length`…); absent when it did not say. */
  finishReason?: string;
  /** True when `usage.inputTokens` is the endpoint's `prompt_tokens`, not our estimate. */
  promptTokensReported?: boolean;
}

export interface LmClient {
  complete(req: CompletionRequest): Promise<CompletionResult>;
  /** The request fields it sends with every call besides model and messages (recorded in run.start). */
  readonly requestFields?: Readonly<Record<string, unknown>>;
}

/** USD per million tokens. */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Input tokens the provider served from its prompt cache; absent: priced as other input. */
  cachedInputPerMTok?: number | undefined;
}
export type PriceTable = Record<string, Price>;
