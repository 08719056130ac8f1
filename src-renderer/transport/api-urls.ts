// Where the page can GET a host session's raw log (`/api/log`, read by the parse worker) and
// the context it ran on (`/api/context`, read by the coverage map): same origin, from
// `rlm-studio serve` with the page's token, and in the desktop app from the shell's app://
// handler, which needs none (its scheme is the app's own). Null: no host serves them here.
import { hasPreloadBridge } from './carrier.ts';

/** A host session's URL on one of the routes, or null. */
type ApiUrlOf = (sessionId: string) => string | null;

export interface ApiUrls {
  log: ApiUrlOf;
  context: ApiUrlOf;
  /** Where a long text is POSTed for the host to keep as a file (web mode only: the desktop app sends it over IPC). */
  upload: (name: string) => string | null;
}

const NONE: ApiUrlOf = () => null;

/** The routes' URLs for this page: web mode (http(s) with a token) or the desktop app (app: with the preload bridge). */
export function apiUrlsForPage(loc: Pick<Location, 'protocol' | 'host' | 'search'>, win: Pick<Window, 'rlmHost'>): ApiUrls {
  const origin = `${loc.protocol}//${loc.host}`;
  const token = new URLSearchParams(loc.search).get('token');
  const web = (loc.protocol === 'http:' || loc.protocol === 'https:') && token !== null && token !== '';
  if (!web && !(loc.protocol === 'app:' && hasPreloadBridge(win))) return { log: NONE, context: NONE, upload: NONE };
  const auth = web ? `&token=${encodeURIComponent(token)}` : '';
  return {
    log: (id) => `${origin}/api/log?session=${encodeURIComponent(id)}${auth}`,
    context: (id) => `${origin}/api/context?session=${encodeURIComponent(id)}${auth}`,
    upload: web ? (name) => `${origin}/api/upload?name=${encodeURIComponent(name)}${auth}` : NONE,
  };
}
