// Ports that fetch refuses to connect to (the Fetch standard's "bad ports", kept from being used
// against mail, IRC or X11 servers). Node's fetch, and so the openai SDK, fails on them with
// "bad port" before connecting, whatever listens there; the SDK then retries for seconds.
// test/integration/lm/openai-client.test.ts checks this list against Node's fetch.
const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The parts of a parsed URL (WHATWG `URL`) that say which port it reaches. */
interface UrlPort {
  protocol: string;
  port: string;
}

/** The port an http(s) URL reaches when fetch refuses to connect to it; null otherwise. */
export function fetchBlockedPort(url: UrlPort): number | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);
  return FETCH_BLOCKED_PORTS.has(port) ? port : null;
}

/** Why an endpoint on `port` cannot be reached, and what to do instead. */
export function blockedPortText(port: number): string {
  return `fetch refuses to connect to port ${port} (one of the Fetch standard's blocked ports; Node's fetch, which the openai SDK uses, enforces them): serve the endpoint on another port`;
}
