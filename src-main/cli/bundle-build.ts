// Builds the shareable-HTML template (bundle-template.html in the UI folder): Vite builds the
// read-only viewer (vite.bundle.config.ts) into one script and one stylesheet, which are
// inlined here into one HTML file whose Content-Security-Policy allows exactly that script
// (by hash) and nothing from the network. `rlm-studio bundle` and the app's Export ▸
// Shareable HTML fill it with a log (src-shared/bundle-template.ts).
// Built with the app by renderer-build.ts; `node src-main/cli/bundle-build.ts [FILE]` builds
// it alone (`npm run build:renderer` does, after the app, into dist/renderer).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { splitTemplate } from '../../src-shared/bundle-template.ts';
import { repoRoot } from './repo-root.ts';

/** The template's name in the UI folder, beside the app it belongs to: the app fetches it for Export ▸ Shareable HTML. */
export const BUNDLE_TEMPLATE = 'bundle-template.html';

const HASHES_MARK = '__RLM_SCRIPT_HASHES__';

/**
 * Inlines the built script and stylesheet into the page. Script text may not hold `<!--`
 * (an HTML parser could then run past the closing tag) and has every `</script` written
 * `<\/script` (the same string, regular expression or comment to JavaScript).
 */
export function inlineAssets(html: string, readAsset: (ref: string) => string): string {
  const hashes: string[] = [];
  const inlined: string[] = [];
  // Each tag becomes a numbered stand-in first, so the checks below read the page, not the code put in.
  const standIn = (text: string): string => `\u0000${inlined.push(text) - 1}\u0000`;
  let page = html.replace(/<script type="module" crossorigin src="([^"]+)"><\/script>/g, (_m, ref: string) => {
    const js = readAsset(ref).replace(/<\/(script)/gi, '<\\/$1');
    if (js.includes('<!--')) throw new Error(`${ref} holds "<!--": it cannot be inlined into a <script> safely`);
    hashes.push(`'sha256-${createHash('sha256').update(js, 'utf8').digest('base64')}'`);
    return standIn(`<script type="module">${js}</script>`);
  });
  page = page.replace(/<link rel="stylesheet" crossorigin href="([^"]+)">/g, (_m, ref: string) => {
    const css = readAsset(ref);
    if (/<\/style/i.test(css)) throw new Error(`${ref} holds "</style": it cannot be inlined`);
    return standIn(`<style>${css}</style>`);
  });
  if (hashes.length !== 1) throw new Error(`expected one entry script in the bundle page, found ${hashes.length}`);
  const left = /<(?:script|link)\b[^>]*\b(?:src|href)="(?!data:)[^"]*"/i.exec(page);
  if (left) throw new Error(`the bundle page still loads a file: ${left[0]}`);
  if (page.split(HASHES_MARK).length !== 2) throw new Error(`the bundle page must hold ${HASHES_MARK} once, in its CSP`);
  page = page.replace(HASHES_MARK, hashes.join(' '));
  // eslint-disable-next-line no-control-regex -- NUL marks the placeholders: no page text holds one.
  const out = page.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => inlined[Number(i)] as string);
  // Refuses a template the fill step could not use.
  splitTemplate(out);
  return out;
}

/** Runs the Vite build and writes the template to `target`. */
export function buildBundleTemplate(target: string): void {
  // Pieces of each build in a folder of its own: builds of two UI folders may run at once.
  const pieces = mkdtempSync(join(tmpdir(), 'rlm-bundle-pieces-'));
  try {
    execFileSync(
      process.execPath,
      [
        join(repoRoot, 'node_modules/vite/bin/vite.js'),
        'build',
        '-c',
        join(repoRoot, 'vite.bundle.config.ts'),
        '--logLevel',
        'warn',
        '--outDir',
        pieces,
        '--emptyOutDir',
      ],
      {
        cwd: repoRoot,
        env: { ...process.env, NODE_ENV: 'production' },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const page = join(pieces, 'bundle/index.html');
    const html = inlineAssets(readFileSync(page, 'utf8'), (ref) => readFileSync(resolve(dirname(page), ref), 'utf8'));
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, html);
    renameSync(tmp, target);
  } finally {
    rmSync(pieces, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const target = resolve(process.argv[2] ?? join(repoRoot, 'dist/renderer', BUNDLE_TEMPLATE));
  buildBundleTemplate(target);
  process.stdout.write(`${target}\n`);
}
