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
}

const NONE: ApiUrlOf = () => null;

/** The routes' URLs for this page: web mode (http(s) with a token) or the desktop app (app: with the preload bridge). */
export function apiUrlsForPage(loc: Pick<Location, 'protocol' | 'host' | 'search'>, win: Pick<Window, 'rlmHost'>): ApiUrls {
  const origin = `${loc.protocol}//${loc.host}`;
  const token = new URLSearchParams(loc.search).get('token');
  let query: (sessionId: string) => string;
  if ((loc.protocol === 'http:' || loc.protocol === 'https:') && token)
    query = (id) => `session=${encodeURIComponent(id)}&token=${encodeURIComponent(token)}`;
  else if (loc.protocol === 'app:' && hasPreloadBridge(win)) query = (id) => `session=${encodeURIComponent(id)}`;
  else return { log: NONE, context: NONE };
  return {
    log: (id) => `${origin}/api/log?${query(id)}`,
    context: (id) => `${origin}/api/context?${query(id)}`,
  };
}
