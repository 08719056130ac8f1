// LM clients behind one interface: OpenAI-compatible over HTTP, or recorded replies.
import type { ChatMessage, Usage } from '../../src-shared/events.ts';

export interface CompletionRequest {
  model: string;
  messages: ChatMessage[];
  signal?: AbortSignal;
}

export interface CompletionResult {
  text: string;
  model: string;
  usage: Usage;
  latencyMs: number;
}

export interface LmClient {
  complete(req: CompletionRequest): Promise<CompletionResult>;
}

/** USD per million tokens. */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}
export type PriceTable = Record<string, Price>;
