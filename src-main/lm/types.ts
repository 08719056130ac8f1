// LM clients behind one interface: OpenAI-compatible over HTTP, or recorded replies.
import type { ChatMessage, Usage } from '../../src-shared/events.ts';

export interface CompletionRequest {
  model: string;
  messages: ChatMessage[];
  signal?: AbortSignal;
  /**
   * A hint that the request has gone out (its body is written), so the caller can use the
   * wait; called at most once, possibly late or for another request, or never.
   */
  onSent?: () => void;
}

export interface CompletionResult {
  text: string;
  model: string;
  usage: Usage;
  latencyMs: number;
  /** Requests the endpoint refused or failed before this one answered (the client's retries); absent when none. */
  retries?: number;
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
}
export type PriceTable = Record<string, Price>;
