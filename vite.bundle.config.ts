// Builds the shareable-HTML viewer (src-renderer/bundle) into one script and one stylesheet
// that src-main/cli/bundle-build.ts then inlines into a single template file: workers as
// blob: URLs, no code splitting, fonts and images as data: URLs, and Monaco replaced by a
// plain read-only code view (see src-renderer/bundle/PlainCodeView.tsx).
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: `${here}src-renderer`,
  base: './',
  plugins: [react()],
  // The page's console handles (window.__rlmStudio) exist only in the tests' build of the UI.
  define: { __RLM_TEST_HANDLES__: JSON.stringify(process.env['RLM_STUDIO_TEST_HANDLES'] === '1') },
  resolve: {
    alias: [{ find: /^\.\/CodeViewImpl\.tsx$/, replacement: `${here}src-renderer/bundle/PlainCodeView.tsx` }],
  },
  // Classic workers: Chromium refuses a module worker from a blob: URL made by a file: page (opaque origin).
  worker: { format: 'iife', rolldownOptions: { checks: { bundlerTimings: false } } },
  build: {
    // Where the pieces go is given on the command line (src-main/cli/bundle-build.ts).
    target: 'es2022',
    chunkSizeWarningLimit: 8000,
    sourcemap: false,
    assetsInlineLimit: Number.MAX_SAFE_INTEGER,
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
    rolldownOptions: {
      input: `${here}src-renderer/bundle/index.html`,
      // Its warning about slow plugins is about this machine, not the build.
      checks: { bundlerTimings: false },
      output: { codeSplitting: false },
    },
  },
});
