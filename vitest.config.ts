import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// Two tiers. The fast one (`npm run test:fast`): unit files, each in a worker thread (no
// process per file), with a short timeout, and the renderer's component tests in jsdom. The
// whole suite (`npm test`, `./bin/test`, CI) adds the integration files, the slow tier
// (the benchmark's structure and the packaged app's layout, each a build of a minute or
// more) and the browser end-to-end tests. `vitest run test/unit` and friends still filter
// by path.

// Unit files that start an isolated-vm isolate (directly or through the engine): isolated-vm
// wants its process started without the Node snapshot, a flag worker threads do not take.
const UNIT_IN_FORKS = [
  'test/unit/sandbox/**/*.test.ts',
  'test/unit/codecs/native.test.ts',
  'test/unit/host/debugger.test.ts',
  'test/unit/rerun/compare.test.ts',
  'test/unit/bench/step.test.ts',
];
const SLOW = ['test/integration/eval/bench-quick.test.ts', 'test/integration/host/packaged-layout.test.ts'];

// isolated-vm wants its host process started without the Node snapshot.
const FORKS = { pool: 'forks' as const, execArgv: ['--no-node-snapshot'] };

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: ['test/unit/renderer/**', ...UNIT_IN_FORKS, '**/node_modules/**'],
          pool: 'threads',
          testTimeout: 10_000,
          hookTimeout: 10_000,
        },
      },
      {
        extends: true,
        test: { name: 'unit-forks', ...FORKS, include: UNIT_IN_FORKS, testTimeout: 20_000, hookTimeout: 20_000 },
      },
      {
        extends: true,
        plugins: [react()],
        test: {
          name: 'renderer',
          include: ['test/unit/renderer/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['test/unit/renderer/setup.ts'],
          pool: 'threads',
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: { name: 'integration', ...FORKS, include: ['test/integration/**/*.test.ts'], exclude: [...SLOW, '**/node_modules/**'] },
      },
      {
        extends: true,
        test: { name: 'slow', ...FORKS, include: SLOW, testTimeout: 300_000, hookTimeout: 300_000 },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          ...FORKS,
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
