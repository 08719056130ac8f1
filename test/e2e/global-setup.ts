// Builds the renderer when dist/renderer is missing or stale, so `npm test` always drives the current UI.
import { ensureRendererBuilt } from '../../src-main/cli/renderer-build.ts';

export default function setup(): void {
  ensureRendererBuilt();
}
