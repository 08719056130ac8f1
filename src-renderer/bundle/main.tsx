// The shareable HTML file's page: the app with no host (read-only, nothing from the
// network), opening the log the file carries through the same worker and ingest path as a
// dropped file. Workers are inlined as blob: URLs (a file:// page may not load them from
// files).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '../App.tsx';
import { ServicesProvider } from '../app/context.tsx';
import { SharedReaderProvider } from '../app/shared-reader.tsx';
import { Services } from '../app/services.ts';
import { createStudioStore } from '../store/studio.ts';
import { prewarmText } from '../lib/prewarm-text.ts';
import ParseWorker from '../workers/parse.worker.ts?worker&inline';
import CoverageWorker from '../workers/coverage.worker.ts?worker&inline';
import { setCoverageWorkerFactory } from '../app/coverage-services.ts';
import { readEmbeddedLog } from './embedded-log.ts';
import '../styles.css';
import './bundle.css';

const store = createStudioStore();
const services = new Services(store, null, () => new ParseWorker());
services.prewarm();
setCoverageWorkerFactory(() => new CoverageWorker());
// For the end-to-end tests: read-only handles, no secrets, and only in the tests' build.
if (__RLM_TEST_HANDLES__) (window as unknown as { __rlmStudio: unknown }).__rlmStudio = { store, services };

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ServicesProvider services={services}>
        <SharedReaderProvider>
          <App />
        </SharedReaderProvider>
      </ServicesProvider>
    </StrictMode>,
  );
}

readEmbeddedLog(document).then(
  (file) => {
    if (!file) return;
    document.title = `${file.name} — RLM Studio`;
    void services.openFile(file);
  },
  (err: unknown) =>
    store.getState().notify('error', `could not read the log in this file: ${err instanceof Error ? err.message : String(err)}`),
);

if (typeof requestIdleCallback === 'function') requestIdleCallback(() => prewarmText(), { timeout: 2000 });
