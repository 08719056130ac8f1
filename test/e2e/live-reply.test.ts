// A reply streaming in, in Chromium against `rlm-studio serve` (issue 38): a mock-llm in this
// process sends the first piece of a root reply and holds the rest; while it holds, the app
// shows that piece in the iteration being written, with the tokens so far. Released, the
// logged reply replaces it, once, whole, and its thinking is in a collapsed box.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlmServer } from '../../src-main/mock-llm/server.ts';
import { shot, appUnderTest } from './support.ts';

let mock: MockLlmServer;
let page: Page;
let holding = false;
let release: () => void = () => undefined;
const held = new Set<number>();

const app = appUnderTest({
  before: async () => {
    mock = await startMockLlm({
      reasoning: 'reasoning_content',
      streamChunkChars: 16,
      // The first root request is held after its first piece, until the test lets it go.
      holdStream: (n) => {
        if (n !== 1) return Promise.resolve();
        held.add(n);
        holding = true;
        return new Promise<void>((r) => (release = r));
      },
    });
  },
  after: async () => {
    release();
    await mock?.close();
  },
  onOpen: (a) => (page = a.page),
});

describe('Live replies in Chromium', () => {
  it('shows the first piece of a reply while the server holds the rest, then the logged reply once', async () => {
    await page.evaluate(`(async () => {
      const svc = window.__rlmStudio.services;
      await svc.host.call('profiles.save', { profile: { name: 'live', baseUrl: ${JSON.stringify(mock.url)}, model: 'mock-root' } });
      await svc.start({ profile: 'live', context: { kind: 'text', text: 'The magic number is 4242.\\n' }, query: 'What is the magic number?' });
    })()`);
    // The server wrote one 16-character piece of the thinking and holds the rest.
    await expect.poll(() => holding, { timeout: 60_000 }).toBe(true);
    const live = page.getByTestId('live-reply');
    await live.waitFor({ timeout: 30_000 });
    await expect.poll(async () => page.getByTestId('live-reasoning').innerText()).toBe('Turn 1: let me p');
    expect(await page.getByTestId('live-reply-rate').innerText()).toMatch(/4 tok so far/);
    expect(holding && held.has(1)).toBe(true);
    expect(mock.stats().completions).toBe(0); // still held: nothing has finished
    await shot(page, 'live-reply-01-held');

    release();
    await page.getByTestId('run-answer').waitFor({ timeout: 90_000 });
    await expect.poll(async () => page.getByTestId('run-answer').innerText(), { timeout: 30_000 }).toContain('4242');
    expect(await page.getByTestId('live-reply').count()).toBe(0);
    // The iteration shown now has its logged reply, once, and its thinking collapsed beside it.
    const reply = page.getByTestId('reply-text');
    expect(await reply.count()).toBe(1);
    const box = page.getByTestId('reasoning');
    expect(await box.count()).toBe(1);
    expect(await box.getAttribute('open')).toBeNull();
    expect(await box.locator('summary').innerText()).toMatch(/Thinking \(\d+ tok, reasoning_content\)/);
    await shot(page, 'live-reply-02-logged');
  });

  it('loaded nothing from the network and logged no errors', () => {
    expect(app.browser.foreign).toEqual([]);
    expect(app.browser.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
  });
});
