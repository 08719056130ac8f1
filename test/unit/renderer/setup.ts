// Renderer component tests: jsdom, automatic cleanup, and Monaco replaced by a plain <pre>
// (Monaco needs a real layout engine; the e2e tests cover it in Chromium).
import { cleanup } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, vi } from 'vitest';

afterEach(() => cleanup());

vi.mock('../../../src-renderer/monaco/CodeView.tsx', () => ({
  CodeView: (p: { value: string; testId?: string; readOnly?: boolean; cutAt?: number | null; language?: string }) =>
    createElement(
      'pre',
      {
        'data-testid': p.testId,
        'data-readonly': p.readOnly === false ? 'false' : 'true',
        'data-cut': p.cutAt ?? '',
        'data-language': p.language ?? 'plaintext',
      },
      p.value,
    ),
}));

// jsdom has no ResizeObserver; the virtualiser and the canvas graph only need it to exist.
class RO {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
(globalThis as unknown as { ResizeObserver: unknown }).ResizeObserver ??= RO;

// jsdom does no layout: give every element a viewport-sized box so the virtualised lists
// render their first screenful.
Object.defineProperty(HTMLElement.prototype, 'offsetHeight', { configurable: true, get: () => 800 });
Object.defineProperty(HTMLElement.prototype, 'offsetWidth', { configurable: true, get: () => 1000 });
Object.defineProperty(Element.prototype, 'clientHeight', { configurable: true, get: () => 800 });
Object.defineProperty(Element.prototype, 'clientWidth', { configurable: true, get: () => 1000 });
HTMLElement.prototype.getBoundingClientRect = function () {
  return { x: 0, y: 0, top: 0, left: 0, bottom: 800, right: 1000, width: 1000, height: 800, toJSON: () => ({}) };
};
// jsdom does not scroll and has no scrollIntoView; the run view calls it when an iteration is picked.
if (typeof Element.prototype.scrollIntoView !== 'function') Element.prototype.scrollIntoView = () => undefined;
