// `rlm-studio mock-llm`: the deterministic OpenAI-compatible server, in the foreground until
// SIGINT/SIGTERM. The "listening" line on stdout is a contract: scripts wait for it and read
// the base URL from it.
import { appendFileSync } from 'node:fs';
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { fileErrorText } from '../../../src-shared/file-errors.ts';
import { UsageError } from '../errors.ts';
import { loadPromptsOption } from '../prompts-option.ts';
import { startMockLlm } from '../../mock-llm/server.ts';
import type { Policy } from '../../mock-llm/policy.ts';
import { loadScriptPolicy, ScriptError } from '../../mock-llm/policies/script.ts';
import { POLICIES, POLICY_NAMES, type PolicyName } from '../../mock-llm/policies/index.ts';
import {
  MOCK_REASONING_FORMS,
  MOCK_REFUSALS,
  OVERFLOW_STYLES,
  type MockReasoning,
  type MockRefusal,
  type OverflowStyle,
} from '../../mock-llm/behaviours.ts';

interface MockLlmCliOptions {
  port: number;
  host: string;
  latencyMs: number;
  script?: string;
  policy: PolicyName;
  costPerMtok?: number;
  failEvery?: number;
  failStatus: number;
  failRetryAfterMs?: number;
  record?: string;
  recordTexts?: boolean;
  reasoning?: MockReasoning;
  cachedTokens?: boolean;
  maxReplyTokens?: number;
  contextWindow?: number;
  overflowStyle: OverflowStyle;
  streamChunkChars: number;
  streamChunkSeed?: number;
  streamChunkMs: number;
  refuse?: MockRefusal;
  prompts?: string;
}

function intArg(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}, got "${value}".`);
    }
    return n;
  };
}

function nonNegativeNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
      throw new InvalidArgumentError(`${name} must be a number ≥ 0, got "${value}".`);
    }
    return n;
  };
}

export function registerMockLlm(program: Command): void {
  program
    .command('mock-llm')
    .description('Run a deterministic OpenAI-compatible server that plays an RLM (for demos, tests and benchmarks).')
    .option('--port <n>', 'port to listen on (0 = any free port)', intArg('--port', 0, 65535), 0)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--latency-ms <n>', 'fixed delay before each reply, in milliseconds', intArg('--latency-ms', 0), 0)
    .addOption(
      new Option(
        '--policy <name>',
        'built-in policy: auto = eval tasks by query, else scenarios; sniah, oolong, oolong-pairs, browsecomp = that eval task for every query',
      )
        .choices(POLICY_NAMES)
        .default('auto'),
    )
    .option('--script <file>', 'JSON file of scripted reply rules (see src-main/mock-llm/README.md)')
    .option(
      '--cost-per-mtok <usd>',
      'report an OpenRouter-style usage.cost at this USD per million tokens',
      nonNegativeNumber('--cost-per-mtok'),
    )
    .option('--fail-every <n>', 'fail every Nth chat request (N, 2N, …) with --fail-status', intArg('--fail-every', 1))
    .option('--fail-status <code>', 'HTTP status of injected failures', intArg('--fail-status', 400, 599), 500)
    .option('--fail-retry-after-ms <n>', 'send retry-after-ms with injected failures', intArg('--fail-retry-after-ms', 0))
    .option(
      '--record <file>',
      "append one JSON line per chat request: model, every body field but the messages, and each message's role and length",
    )
    .option('--record-texts', "with --record: keep each message's text in the record too")
    .addOption(
      new Option(
        '--reasoning <form>',
        "send a reasoning model's thinking: in reasoning_content (vLLM, DeepSeek), in reasoning (OpenRouter), or as <think>…</think> in the content (Qwen3 without a reasoning parser)",
      ).choices(MOCK_REASONING_FORMS),
    )
    .option('--cached-tokens', 'report prompt_tokens_details.cached_tokens: the longest message prefix an earlier request sent')
    .option('--max-reply-tokens <n>', 'cut longer replies to N tokens, with finish_reason "length"', intArg('--max-reply-tokens', 1))
    .option(
      '--context-window <n>',
      'refuse requests whose prompt has more tokens than N, as real servers refuse them (see --overflow-style)',
      intArg('--context-window', 1),
    )
    .addOption(
      new Option('--overflow-style <style>', "the refusal's shape: OpenAI's 400 context_length_exceeded, or vLLM's")
        .choices(OVERFLOW_STYLES)
        .default('openai'),
    )
    .option(
      '--stream-chunk-chars <n>',
      'characters per streamed chunk (the most, with --stream-chunk-seed)',
      intArg('--stream-chunk-chars', 1),
      64,
    )
    .option(
      '--stream-chunk-seed <n>',
      'stream chunks of random sizes from 1 to --stream-chunk-chars, drawn from this seed',
      intArg('--stream-chunk-seed', 0),
    )
    .option('--stream-chunk-ms <n>', 'milliseconds between streamed chunks (a slow token stream)', intArg('--stream-chunk-ms', 0), 0)
    .addOption(
      new Option('--refuse <what>', 'answer 400 to requests that carry stream_options, or that ask to stream').choices(MOCK_REFUSALS),
    )
    .option('--prompts <PACK.json>', 'the prompt pack of the runs it serves: requests are read by its texts (default: our packs)')
    .action(async (opts: MockLlmCliOptions) => {
      let policy: Policy = POLICIES[opts.policy];
      if (opts.script !== undefined) {
        try {
          policy = await loadScriptPolicy(opts.script);
        } catch (err) {
          if (err instanceof ScriptError) throw new UsageError(err.message);
          throw err;
        }
      }
      if (opts.recordTexts && opts.record === undefined) throw new UsageError('--record-texts needs --record <file>');
      if (opts.record !== undefined) {
        try {
          appendFileSync(opts.record, '');
        } catch (err) {
          throw new UsageError(`--record ${opts.record}: cannot write it: ${fileErrorText(err, true)}`);
        }
      }
      const prompts = await loadPromptsOption(opts.prompts);
      let server;
      try {
        server = await startMockLlm({
          ...(prompts ? { prompts } : {}),
          port: opts.port,
          host: opts.host,
          latencyMs: opts.latencyMs,
          costPerMTok: opts.costPerMtok ?? null,
          failStatus: opts.failStatus,
          policy,
          ...(opts.failEvery !== undefined ? { failEvery: opts.failEvery } : {}),
          ...(opts.failRetryAfterMs !== undefined ? { failRetryAfterMs: opts.failRetryAfterMs } : {}),
          reasoning: opts.reasoning ?? null,
          cachedTokens: opts.cachedTokens ?? false,
          maxReplyTokens: opts.maxReplyTokens ?? null,
          contextWindow: opts.contextWindow ?? null,
          overflowStyle: opts.overflowStyle,
          streamChunkChars: opts.streamChunkChars,
          streamChunkSeed: opts.streamChunkSeed ?? null,
          streamChunkMs: opts.streamChunkMs,
          refuse: opts.refuse ?? null,
          ...(opts.record !== undefined ? { recordFile: opts.record, recordTexts: opts.recordTexts ?? false } : {}),
        });
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (code === 'EADDRINUSE') throw new UsageError(`port ${opts.port} on ${opts.host} is already in use`);
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on host ${opts.host}`);
        throw err;
      }
      process.stdout.write(`mock-llm listening on ${server.url}\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void server.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
