// Builds the tests' UI when it is missing or stale, so `npm test` always drives the current UI;
// every server and command the tests start inherits its environment (testUiEnv).
import { ensureRendererBuilt } from '../../src-main/cli/renderer-build.ts';
import { testUiEnv } from './support.ts';

export default function setup(): void {
  Object.assign(process.env, testUiEnv());
  ensureRendererBuilt(testUiEnv().RLM_STUDIO_UI_DIR);
}
