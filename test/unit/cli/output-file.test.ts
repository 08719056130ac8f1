// writeWhole (cli/output-file.ts): an output file is written whole or not at all, and a file that
// is there before or appears meanwhile is never replaced.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeWhole } from '../../../src-main/cli/output-file.ts';

const fresh = (): string => mkdtempSync(join(tmpdir(), 'rlm-output-file-'));

describe('writeWhole', () => {
  it('writes the file whole and returns what the writer returned, leaving no partial copy', async () => {
    const dir = fresh();
    const out = join(dir, 'out.jsonl');
    const n = await writeWhole(out, async (sink) => {
      for (let i = 0; i < 1000; i++) await sink.write(`{"i":${i}}\n`);
      return 1000;
    });
    expect(n).toBe(1000);
    expect(readFileSync(out, 'utf8').split('\n')).toHaveLength(1001);
    expect(readdirSync(dir)).toEqual(['out.jsonl']);
  });

  it('leaves nothing behind when the writer fails halfway', async () => {
    const dir = fresh();
    const failure = new Error('the third log is unreadable');
    const res = writeWhole(join(dir, 'out.jsonl'), async (sink) => {
      await sink.write('half of it\n');
      throw failure;
    });
    await expect(res).rejects.toBe(failure);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a file already there, before writing, and one that appears while it writes, which it leaves as it is', async () => {
    const dir = fresh();
    const out = join(dir, 'out.jsonl');
    writeFileSync(out, 'mine\n');
    let called = false;
    await expect(
      writeWhole(out, async () => {
        called = true;
      }),
    ).rejects.toThrow(`${out} already exists; refusing to overwrite it`);
    expect(called).toBe(false);

    const later = join(dir, 'later.jsonl');
    const res = writeWhole(later, async (sink) => {
      await sink.write('ours\n');
      writeFileSync(later, 'someone else wrote this meanwhile\n');
    });
    await expect(res).rejects.toThrow(`${later} already exists; refusing to overwrite it`);
    expect(readFileSync(later, 'utf8')).toBe('someone else wrote this meanwhile\n');
    expect(existsSync(`${later}.partial`)).toBe(false);
  });

  it('names a partial copy left by a stopped write, and the asked-for path when its folder is missing', async () => {
    const dir = fresh();
    const out = join(dir, 'out.jsonl');
    writeFileSync(`${out}.partial`, 'from a run that was killed\n');
    await expect(writeWhole(out, async () => undefined)).rejects.toThrow(
      `${out}.partial already exists, perhaps left by a write of ${out} that was stopped`,
    );
    expect(readFileSync(`${out}.partial`, 'utf8')).toBe('from a run that was killed\n');
    const nowhere = join(dir, 'no-such-folder', 'out.jsonl');
    await expect(writeWhole(nowhere, async () => undefined)).rejects.toThrow(`${nowhere}: cannot create it: its folder does not exist`);
  });
});
