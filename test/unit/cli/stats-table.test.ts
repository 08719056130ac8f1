import { describe, expect, it } from 'vitest';
import { formatStatsTable } from '../../../src-main/cli/commands/stats.ts';
import type { LogStats } from '../../../src-shared/trajectory/log-stats.ts';

const stats = (byModel: LogStats['byModel'], costUsd: number | null): LogStats => ({
  sessions: 1,
  runs: 1,
  maxDepth: 0,
  iterations: 2,
  codeBlocks: 2,
  llmCalls: 3,
  rlmCalls: 0,
  errors: 0,
  inputTokens: 100,
  outputTokens: 10,
  costUsd,
  retries: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  cutReplies: 0,
  wallMs: 5,
  byModel,
});
const costLine = (s: LogStats): string | undefined =>
  formatStatsTable(s, 'native')
    .split('\n')
    .find((l) => l.startsWith('cost (USD)'));

describe('stats table: cost', () => {
  it('prints the total when every model recorded a price', () => {
    const s = stats(
      { a: { calls: 2, inputTokens: 60, outputTokens: 6, costUsd: 0.25 }, b: { calls: 1, inputTokens: 40, outputTokens: 4, costUsd: 0 } },
      0.25,
    );
    expect(costLine(s)).toMatch(/\s0\.250000$/);
  });

  it('says unknown, not 0, when no call recorded a price', () => {
    const s = stats({ a: { calls: 3, inputTokens: 100, outputTokens: 10, costUsd: null } }, null);
    expect(costLine(s)).toMatch(/\sunknown \(no call recorded a price\)$/);
  });

  it('names the models whose calls it could not count', () => {
    const s = stats(
      { a: { calls: 2, inputTokens: 60, outputTokens: 6, costUsd: 0.5 }, b: { calls: 1, inputTokens: 40, outputTokens: 4, costUsd: null } },
      0.5,
    );
    expect(costLine(s)).toMatch(/\s0\.500000, not counting b \(no price recorded\)$/);
  });

  it('prints 0 for a log with no model calls', () => {
    expect(costLine(stats({}, 0))).toMatch(/\s0\.000000$/);
  });
});
