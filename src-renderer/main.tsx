import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { ServicesProvider } from './app/context.tsx';
import { Services } from './app/services.ts';
import { createStudioStore } from './store/studio.ts';
import { carrierForPage } from './transport/carrier.ts';
import './styles.css';

const store = createStudioStore();
const services = new Services(store, carrierForPage(window.location, window), () => new Worker(new URL('./workers/parse.worker.ts', import.meta.url), { type: 'module' }));
// For end-to-end tests and the console: read-only handles, no secrets.
(window as unknown as { __rlmStudio: unknown }).__rlmStudio = { store, services };

// `rlm-studio view LOG` names the session to show in the URL fragment.
const wanted = new URLSearchParams(window.location.hash.slice(1)).get('session');
if (wanted) void services.openSession(wanted);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ServicesProvider services={services}>
        <App />
      </ServicesProvider>
    </StrictMode>,
  );
}
