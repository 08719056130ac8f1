// Recognising a request refused for its length (the model's context window exceeded) in the
// words and shapes the endpoints use, and the numbers they give: the window and the
// request's tokens. No endpoint agrees with another, so each shape is listed.

export interface LengthRefusal {
  /** The context window the endpoint named; null when it named none. */
  windowTokens: number | null;
  /** The request's tokens as the endpoint counted them (its input where it says); null when it gave none. */
  requestTokens: number | null;
}

/** [pattern, which group is the window, which the request's tokens] — 0 for none. */
const SHAPES: readonly [RegExp, number, number][] = [
  // vLLM: "… maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion)."
  [
    /maximum context length is (\d+) tokens\.? However, you requested (?:about )?\d+ tokens \((\d+) (?:in the messages|of text input)/i,
    1,
    2,
  ],
  // OpenAI: "… maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."
  // OpenRouter: "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens"
  // vLLM (newer): "… maximum context length is 32768 tokens and your request has 32000 input tokens"
  [
    /maximum context length is (\d+) tokens[.,]? (?:However, )?(?:your messages resulted in|you requested(?: about)?|(?:and )?your request has) (\d+)/i,
    1,
    2,
  ],
  // Anthropic: "prompt is too long: 213000 tokens > 200000 maximum"
  [/prompt is too long: (\d+) tokens > (\d+) maximum/i, 2, 1],
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  [/input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)/i, 2, 1],
  [/maximum context length is (\d+)/i, 1, 0],
];

/** Words that say the window was exceeded when no numbers come with them. */
const WORDS =
  /context[ _-](?:length|window|size)|exceeds the available context|prompt is too long|too many tokens|exceeds the maximum number of tokens/i;

/** The length refusal an error describes, or null for any other error. */
export function lengthRefusal(status: number, message: string, body: string): LengthRefusal | null {
  if (status !== 400 && status !== 413 && status !== 422 && status !== 500) return null;
  const fields = codeFields(body);
  const byCode = fields.code === 'context_length_exceeded' || fields.type === 'exceed_context_size_error';
  const text = `${message}\n${body}`;
  for (const [re, w, r] of SHAPES) {
    const m = re.exec(text);
    if (m) return { windowTokens: num(m[w]) ?? fields.nCtx, requestTokens: num(m[r]) ?? fields.nPrompt };
  }
  if (byCode || WORDS.test(text)) return { windowTokens: fields.nCtx, requestTokens: fields.nPrompt };
  return null;
}

/** The length refusal an LM client's error carries (LmEndpointError's), or null. */
export function lengthRefusalOf(err: unknown): LengthRefusal | null {
  if (!(err instanceof Error) || !('lengthRefusal' in err)) return null;
  const r = (err as { lengthRefusal: unknown }).lengthRefusal;
  return typeof r === 'object' && r !== null ? (r as LengthRefusal) : null;
}

/**
 * The message a run stops with: the window, the request's tokens (the endpoint's count, else
 * our estimate) and the settings to change.
 */
export function overflowMessage(
  r: LengthRefusal,
  at: { at: string; estimatedTokens: number; assumedWindow: number; model: string },
): string {
  const request =
    r.requestTokens !== null ? `${r.requestTokens} tokens (reported by the endpoint)` : `about ${at.estimatedTokens} tokens (estimated)`;
  const window =
    r.windowTokens !== null
      ? `the model's context window of ${r.windowTokens} tokens (reported by the endpoint)`
      : `the model's context window (the endpoint named none; ${at.assumedWindow} tokens were assumed for ${at.model})`;
  const setting =
    r.windowTokens !== null && r.windowTokens !== at.assumedWindow
      ? `set --context-window ${r.windowTokens} (${at.assumedWindow} was assumed) and use --compaction, so the history is summarised before it outgrows the window`
      : 'use --compaction with --context-window set to the real window, so the history is summarised before it outgrows it, or give a smaller context';
  return `context window exceeded at ${at.at}: the request of ${request} exceeds ${window}; ${setting}`;
}

function num(s: string | undefined): number | null {
  if (s === undefined) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

interface CodeFields {
  code: unknown;
  type: unknown;
  /** llama.cpp's server: `n_ctx` and `n_prompt_tokens` beside its `exceed_context_size_error`. */
  nCtx: number | null;
  nPrompt: number | null;
}

function codeFields(body: string): CodeFields {
  let raw: unknown = null;
  try {
    raw = JSON.parse(body);
  } catch {
    // not JSON: the words alone decide
  }
  const top = isRecord(raw) ? raw : {};
  const e = isRecord(top['error']) ? top['error'] : top;
  const int = (x: unknown): number | null => (typeof x === 'number' && Number.isSafeInteger(x) ? x : null);
  return { code: e['code'], type: e['type'], nCtx: int(e['n_ctx']), nPrompt: int(e['n_prompt_tokens']) };
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
