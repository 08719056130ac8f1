// Builds the renderer (src-renderer) into dist/renderer, which `rlm-studio serve` and the
// Electron shell load. Everything is bundled (Monaco and its workers too): the app never
// fetches anything from the network.
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
  worker: { format: 'es' },
  build: {
    outDir: `${here}dist/renderer`,
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 8000,
    sourcemap: false,
  },
  server: { fs: { allow: [here] } },
});
