// `rlm-studio coverage` on files: a native log and the reference library's, text and --json,
// and bad input named in one line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCoverage } from '../../../src-main/cli/commands/coverage.ts';
import { UsageError } from '../../../src-main/cli/errors.ts';
import { encodeNative } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asSessionId } from '../../../src-shared/events.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { makeContext, nativeSession, referenceLog } from './coverage-sessions.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-coverage-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { context, needle } = makeContext(2000, 1500);
const contextFile = join(dir, 'context.txt');
writeFileSync(contextFile, context);
const turns = [{ stdout: context.slice(0, 300) }, { stdout: `1500 ${needle}` }];

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out, err };
}

describe('rlm-studio coverage', () => {
  it('reads a native log and a reference log of the same session to the same figures', async () => {
    const native = join(dir, 'session.rlm.jsonl');
    writeFileSync(native, [...encodeNative(makeHeader(asSessionId('s'), new Date(0)), nativeSession(turns))].join(''));
    const reference = join(dir, 'session.jsonl');
    writeFileSync(reference, referenceLog(turns));
    const a = capture();
    const ja = await runCoverage(native, { context: contextFile, json: true }, a.io);
    const b = capture();
    const jb = await runCoverage(reference, { context: contextFile, json: true }, b.io);
    expect(ja.format).toBe('native');
    expect(jb.format).toBe('rlm-python');
    for (const j of [ja, jb]) {
      expect(j.session.seenByRootChars).toBe(300 + needle.length);
      expect(j.session.unseenChars).toBe(context.length - 300 - needle.length);
    }
    expect(JSON.parse(a.out.join(''))).toEqual(JSON.parse(JSON.stringify(ja)));
    // The session's context was recorded as 10 characters by the synthetic run.start: a warning, not a failure.
    expect(a.err.join('')).toMatch(/warning: the log's context had 10 characters/);
  });

  it('prints a table, the largest unseen spans and where each span was seen', async () => {
    const c = capture();
    await runCoverage(join(REFERENCE_FIXTURES, 'a_needle.jsonl'), { context: join(REFERENCE_FIXTURES, 'contexts/a_needle.txt') }, c.io);
    const text = c.out.join('');
    expect(text).toMatch(/^context: 200,120 characters; copies of at least 31 characters are counted/);
    expect(text).toMatch(/session\s+390 \(0\.2%\)\s+0 \(0\.0%\)\s+0 \(0\.0%\)\s+199,730 \(99\.8%\)/);
    expect(text).toContain('[0, 300)  seen by the model of run r0, iteration 1, block 0');
    expect(text).toContain('largest spans no model saw:\n  [300, 141,992)  141,692 chars');
    expect(c.err.join('')).toBe('');
  });

  it('names a missing log or context file', async () => {
    await expect(runCoverage(join(dir, 'nope.jsonl'), { context: contextFile }, capture().io)).rejects.toThrow(UsageError);
    await expect(runCoverage(join(REFERENCE_FIXTURES, 'a_needle.jsonl'), { context: join(dir, 'nope.txt') }, capture().io)).rejects.toThrow(
      /--context .*nope\.txt: no such file/,
    );
    await expect(runCoverage(join(REFERENCE_FIXTURES, 'a_needle.jsonl'), { context: dir }, capture().io)).rejects.toThrow(/is not a file/);
  });
});
