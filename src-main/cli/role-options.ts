// The endpoint and sampling of each role, for `run` and `eval`: the root (every turn of the
// root and of child runs) and sub-calls (`llm_query`, `llm_query_batched`, and `rlm_query`
// where it falls back to a plain call at max depth). As in the reference library, sub-calls
// share the root's endpoint and sampling unless told otherwise; `--sub-…` sampling on the
// root's endpoint overrides the root's key by key, and on another endpoint (`--sub-base-url`)
// only the `--sub-…` settings apply (the reference's `other_backends` kwargs do not inherit
// the root's `sampling_args` either).
import { type Command, InvalidArgumentError, Option } from 'commander';
import { withoutUndefined, type Loose } from '../../src-shared/defined.ts';
import { blockedPortText, fetchBlockedPort } from '../../src-shared/endpoint-url.ts';
import { OpenAiCompatibleClient } from '../lm/openai-client.ts';
import { isEmptySampling, mergeSampling, type Sampling, samplingArgs, samplingProblem } from '../lm/sampling.ts';
import type { LmClient } from '../lm/types.ts';
import { UsageError } from './errors.ts';

export interface RoleOptions {
  /** `--no-stream` (false): whole replies only. Unset: streamed, except under a reference prompt pack (`streamFor`). */
  stream?: boolean;
  subBaseUrl?: string;
  subApiKeyEnv?: string;
  temperature?: number;
  topP?: number;
  seed?: number;
  maxOutputTokens?: number;
  subTemperature?: number;
  subTopP?: number;
  subSeed?: number;
  subMaxOutputTokens?: number;
}

function samplingArg(flag: string, key: keyof Sampling) {
  return (v: string): number => {
    const n = v.trim() === '' ? Number.NaN : Number(v);
    const problem = samplingProblem(key, n);
    if (problem) throw new InvalidArgumentError(`${flag} ${problem}, got "${v}".`);
    return n;
  };
}

/** An http(s) URL, checked when parsed: a typo fails at once rather than as every model call's error. */
export function urlArg(flag: string) {
  return (v: string): string => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      throw new InvalidArgumentError(`${flag} must be an http(s) URL such as http://127.0.0.1:8000/v1, got "${v}".`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidArgumentError(`${flag} must be an http(s) URL, got "${v}".`);
    const port = fetchBlockedPort(u);
    if (port !== null) throw new InvalidArgumentError(`${flag} ${v}: ${blockedPortText(port)}.`);
    return v;
  };
}

const SAMPLING_FLAGS: readonly { key: keyof Sampling; flag: string; value: string; help: string }[] = [
  { key: 'temperature', flag: 'temperature', value: '<t>', help: 'sampling temperature (≥ 0)' },
  { key: 'topP', flag: 'top-p', value: '<p>', help: 'nucleus sampling top_p, in (0, 1]' },
  { key: 'seed', flag: 'seed', value: '<n>', help: 'sampling seed (integer)' },
  {
    key: 'maxOutputTokens',
    flag: 'max-output-tokens',
    value: '<n>',
    help: 'cap on the tokens of each reply (sent as max_completion_tokens)',
  },
];

/** `--sub-base-url`, `--sub-api-key-env` and the sampling flags of both roles. */
export function addRoleOptions(cmd: Command): Command {
  cmd
    .addOption(
      new Option(
        '--sub-base-url <url>',
        'OpenAI-compatible endpoint for sub-calls (llm_query, batched, rlm_query at max depth); default: --base-url',
      ).argParser(urlArg('--sub-base-url')),
    )
    .option('--sub-api-key-env <var>', 'environment variable holding the key of --sub-base-url (default OPENAI_API_KEY)')
    // Both spellings, so that neither given leaves `stream` unset (commander defaults a lone --no-x to true).
    .option('--stream', 'stream replies even under a reference prompt pack')
    .option(
      '--no-stream',
      'ask for whole replies: no live text while a reply is written (default: streamed, falling back where an endpoint refuses; not streamed with a reference prompt pack, whose requests then carry no stream fields, as the reference library sends them)',
    );
  for (const s of SAMPLING_FLAGS) {
    cmd.addOption(
      new Option(`--${s.flag} ${s.value}`, `${s.help} for root calls (the turns of the root and of child runs)`).argParser(
        samplingArg(`--${s.flag}`, s.key),
      ),
    );
  }
  for (const s of SAMPLING_FLAGS) {
    cmd.addOption(
      new Option(`--sub-${s.flag} ${s.value}`, `${s.help} for sub-calls (default: --${s.flag} unless --sub-base-url is given)`).argParser(
        samplingArg(`--sub-${s.flag}`, s.key),
      ),
    );
  }
  return cmd;
}

export function rootSampling(o: RoleOptions): Sampling {
  return pick({ temperature: o.temperature, topP: o.topP, seed: o.seed, maxOutputTokens: o.maxOutputTokens });
}

/** The sub-calls' own flags only. */
function subSamplingFlags(o: RoleOptions): Sampling {
  return pick({ temperature: o.subTemperature, topP: o.subTopP, seed: o.subSeed, maxOutputTokens: o.subMaxOutputTokens });
}

function pick(s: Loose<Sampling>): Sampling {
  return withoutUndefined<Sampling>(s);
}

/** The key in `envVar` (default OPENAI_API_KEY); a named variable that is unset is an error naming `flag`. */
function apiKeyFrom(envVar: string | undefined, flag: string): string {
  const key = process.env[envVar ?? 'OPENAI_API_KEY'];
  if (key) return key;
  if (envVar) throw new UsageError(`${flag} ${envVar}: that environment variable is not set`);
  // Local endpoints (vLLM, Ollama, mock-llm) need no key, but the SDK wants a string.
  return 'no-key';
}

export interface RoleClients {
  client: LmClient;
  /** Absent when sub-calls use `client` unchanged. */
  subClient?: LmClient;
  /** What sub-calls are sent with, for the record (eval.json). */
  sub: { baseUrl: string; sampling: Sampling } | null;
}

/**
 * What each role is sent, without reading any key: for `eval --queue`, whose workers read the
 * keys from their own environment (the variable named here; null: OPENAI_API_KEY if set).
 */
export function roleSpec(o: RoleOptions & { baseUrl: string; apiKeyEnv?: string }): {
  apiKeyEnv: string | null;
  sampling: Sampling;
  sub: { baseUrl: string; apiKeyEnv: string | null; sampling: Sampling } | null;
} {
  const sampling = rootSampling(o);
  const apiKeyEnv = o.apiKeyEnv ?? null;
  const own = subSamplingFlags(o);
  if (o.subBaseUrl === undefined && o.subApiKeyEnv === undefined && isEmptySampling(own)) return { apiKeyEnv, sampling, sub: null };
  const separateKey = o.subApiKeyEnv !== undefined || o.subBaseUrl !== undefined;
  return {
    apiKeyEnv,
    sampling,
    sub: {
      baseUrl: o.subBaseUrl ?? o.baseUrl,
      apiKeyEnv: separateKey ? (o.subApiKeyEnv ?? null) : apiKeyEnv,
      sampling: o.subBaseUrl === undefined ? mergeSampling(sampling, own) : own,
    },
  };
}

/** The clients of both roles from the command line. */
export function roleClients(o: RoleOptions & { baseUrl: string; apiKeyEnv?: string }): RoleClients {
  const root = rootSampling(o);
  const apiKey = apiKeyFrom(o.apiKeyEnv, '--api-key-env');
  const stream = o.stream ?? true;
  const client = new OpenAiCompatibleClient({ baseUrl: o.baseUrl, apiKey, sampling: samplingArgs(root), stream });
  const own = subSamplingFlags(o);
  if (o.subBaseUrl === undefined && o.subApiKeyEnv === undefined && isEmptySampling(own)) return { client, sub: null };
  const baseUrl = o.subBaseUrl ?? o.baseUrl;
  const sampling = o.subBaseUrl === undefined ? mergeSampling(root, own) : own;
  // Another endpoint gets its own key (never the root's --api-key-env key, which may be a third party's).
  const subKey = o.subApiKeyEnv !== undefined || o.subBaseUrl !== undefined ? apiKeyFrom(o.subApiKeyEnv, '--sub-api-key-env') : apiKey;
  const subClient = new OpenAiCompatibleClient({ baseUrl, apiKey: subKey, sampling: samplingArgs(sampling), stream });
  return { client, subClient, sub: { baseUrl, sampling } };
}
