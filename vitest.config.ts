import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Three projects: Node unit/integration tests (as before), renderer component tests in
// jsdom, and browser end-to-end tests (Chromium driven by playwright-core against
// `rlm-studio serve`). `vitest run test/unit` and friends still filter by path.
export default defineConfig({
  test: {
    // isolated-vm wants its host process started without the Node snapshot.
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          exclude: ['test/unit/renderer/**', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        plugins: [react()],
        test: {
          name: 'renderer',
          include: ['test/unit/renderer/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['test/unit/renderer/setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          // One browser and one server per file; files run one after another.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
