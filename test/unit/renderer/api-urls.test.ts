// Where the page reads a host session's log and context: web mode with its token, the
// desktop app over its own app:// scheme, nowhere else.
import { describe, expect, it } from 'vitest';
import { apiUrlsForPage } from '../../../src-renderer/transport/api-urls.ts';

const bridge = { send: () => undefined, onMessage: () => () => undefined };
const loc = (href: string) => {
  const u = new URL(href);
  return { protocol: u.protocol, host: u.host, search: u.search };
};

describe('apiUrlsForPage', () => {
  it('web mode: the serving origin, with the page’s token', () => {
    const urls = apiUrlsForPage(loc('http://127.0.0.1:8123/?token=a+b/c'), {});
    expect(urls.log('S 1/ü')).toBe('http://127.0.0.1:8123/api/log?session=S%201%2F%C3%BC&token=a%20b%2Fc');
    expect(urls.context('S')).toBe('http://127.0.0.1:8123/api/context?session=S&token=a%20b%2Fc');
    expect(apiUrlsForPage(loc('https://studio.example/?token=t'), {}).log('S')).toBe('https://studio.example/api/log?session=S&token=t');
  });

  it('the desktop app: app://rlm-studio, no token', () => {
    const urls = apiUrlsForPage(loc('app://rlm-studio/index.html'), { rlmHost: bridge });
    expect(urls.log('S 1')).toBe('app://rlm-studio/api/log?session=S%201');
    expect(urls.context('S')).toBe('app://rlm-studio/api/context?session=S');
    // The session is a query parameter the shell's handler reads back as given.
    expect(new URL(urls.log('a&b=c')!).searchParams.get('session')).toBe('a&b=c');
  });

  it('no host serving them: web mode without a token, app: without the bridge, a file', () => {
    for (const [href, win] of [
      ['http://127.0.0.1:8123/', {}],
      ['app://rlm-studio/index.html', {}],
      ['file:///tmp/shared.html', { rlmHost: bridge }],
      ['http://127.0.0.1:8123/', { rlmHost: bridge }],
    ] as const) {
      const urls = apiUrlsForPage(loc(href), win);
      expect([urls.log('S'), urls.context('S')], href).toEqual([null, null]);
    }
  });
});
