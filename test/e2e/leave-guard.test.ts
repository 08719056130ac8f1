// Leaving the page with a session read from a local file open: Chromium asks first (the
// session lives only in the page); with none open, a reload goes ahead without asking.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dialog } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appUnderTest, dropText, FIXTURES } from './support.ts';

const WAIT = { timeout: 30_000 };
const app = appUnderTest();

describe('leaving the page', () => {
  it('asks before a reload drops a session read from a local file, and not once none is open', async () => {
    const { page } = app;
    const seen: string[] = [];
    const onDialog = (d: Dialog): void => {
      seen.push(d.type());
      void d.accept();
    };
    page.on('dialog', onDialog);
    // Chromium asks only on a page the person has used: a click first.
    await page.getByTestId('tab-run').click();
    await dropText(page, 'a_needle.jsonl', readFileSync(join(FIXTURES, 'a_needle.jsonl'), 'utf8'));
    await page.getByRole('button', { name: 'Export native' }).waitFor(WAIT);
    await page.reload();
    expect(seen).toEqual(['beforeunload']);

    await page.getByTestId('tab-run').click();
    await page.reload();
    expect(seen).toEqual(['beforeunload']);
    page.off('dialog', onDialog);
  });
});
