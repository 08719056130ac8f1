// Sampling settings of one role (the root, or sub-calls) and how they go on the wire. The
// names are ours (camelCase, as in profiles and the CLI); the request fields are the OpenAI
// chat-completions ones the reference library sends (it renames `max_tokens` to
// `max_completion_tokens`, so do we).
import type { Loose } from '../../src-shared/defined.ts';
import type { SamplingArgs } from './openai-client.ts';

export interface Sampling {
  temperature?: number;
  topP?: number;
  seed?: number;
  maxOutputTokens?: number;
}

const SAMPLING_KEYS = ['temperature', 'topP', 'seed', 'maxOutputTokens'] as const satisfies readonly (keyof Sampling)[];

/**
 * The problem with one value, or null when it is fine. `temperature` ≥ 0, `topP` in (0, 1],
 * `seed` an integer, `maxOutputTokens` a positive integer.
 */
export function samplingProblem(key: keyof Sampling, v: number): string | null {
  if (!Number.isFinite(v)) return 'must be a finite number';
  switch (key) {
    case 'temperature':
      return v < 0 ? 'must be a number ≥ 0' : null;
    case 'topP':
      return v > 0 && v <= 1 ? null : 'must be a number in (0, 1]';
    case 'seed':
      return Number.isSafeInteger(v) ? null : 'must be an integer';
    case 'maxOutputTokens':
      return Number.isSafeInteger(v) && v >= 1 ? null : 'must be a positive integer';
  }
}

/** The request fields for these settings; unset settings are left to the endpoint's defaults. */
export function samplingArgs(s: Loose<Sampling>): SamplingArgs {
  const out: SamplingArgs = {};
  if (s.temperature !== undefined) out.temperature = s.temperature;
  if (s.topP !== undefined) out.top_p = s.topP;
  if (s.seed !== undefined) out.seed = s.seed;
  if (s.maxOutputTokens !== undefined) out.max_completion_tokens = s.maxOutputTokens;
  return out;
}

/** `over` wins key by key. */
export function mergeSampling(base: Sampling, over: Sampling): Sampling {
  const out: Sampling = { ...base };
  for (const key of SAMPLING_KEYS) if (over[key] !== undefined) out[key] = over[key];
  return out;
}

export function isEmptySampling(s: Sampling): boolean {
  return SAMPLING_KEYS.every((k) => s[k] === undefined);
}
