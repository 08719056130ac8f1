import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { ServicesProvider } from './app/context.tsx';
import { ViewBoundary } from './views/ViewBoundary.tsx';
import { Services } from './app/services.ts';
import { setCoverageWorkerFactory } from './app/coverage-services.ts';
import { createStudioStore } from './store/studio.ts';
import { apiUrlsForPage } from './transport/api-urls.ts';
import { carrierForPage, hasPreloadBridge } from './transport/carrier.ts';
import { installLeaveGuard } from './app/leave-guard.ts';
import { prewarmMonaco, runPrewarm } from './monaco/prewarm.ts';
import { usePrefs } from './store/prefs.ts';
import { prewarmTextSteps } from './lib/prewarm-text.ts';
import { shareableHtmlFrom } from './lib/shareable-html.ts';
import './styles.css';

const store = createStudioStore();
// A host session's raw log, read by the parse worker, and the context it ran on, read by the
// coverage map: served by `rlm-studio serve` and by the desktop app alike.
const apiUrls = apiUrlsForPage(window.location, window);
const services = new Services(
  store,
  carrierForPage(window.location, window),
  () => new Worker(new URL('./workers/parse.worker.ts', import.meta.url), { type: 'module' }),
  apiUrls.log,
  shareableHtmlFrom(document.baseURI),
  apiUrls.context,
  apiUrls.upload,
);
services.prewarm();
if (!hasPreloadBridge(window)) installLeaveGuard(window, store.getState);
setCoverageWorkerFactory(() => new Worker(new URL('./workers/coverage.worker.ts', import.meta.url), { type: 'module' }));
// For the end-to-end tests: read-only handles, no secrets, and only in the tests' build.
if (__RLM_TEST_HANDLES__) (window as unknown as { __rlmStudio: unknown }).__rlmStudio = { store, services };

// `rlm-studio view LOG` names the session to show in the URL fragment.
const wanted = new URLSearchParams(window.location.hash.slice(1)).get('session');
if (wanted) void services.openSession(wanted);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ServicesProvider services={services}>
        {/* The last resort: each view has its own boundary, this one keeps a fault in the shell from blanking the page. */}
        <ViewBoundary what="the app">
          <App />
        </ViewBoundary>
      </ServicesProvider>
    </StrictMode>,
  );
}

// After the first paint, in idle moments: the first use of the fonts and Monaco's one-time
// costs, side by side, one short step at a time (monaco/prewarm.ts). Monaco's modules start at
// once, as a single import did before, so a log opened early still finds them on their way.
void runPrewarm(prewarmTextSteps()).catch(() => undefined);
void prewarmMonaco(usePrefs.getState().theme).catch(() => undefined);
