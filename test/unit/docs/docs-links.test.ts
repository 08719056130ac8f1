// The documents in the repository stand on their own: the README starts with its two commands,
// every relative link in the README and docs/ reaches a file (and a heading, when it names one),
// and nothing sends a reader outside the clone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) out.add(slug(m[1]!.replace(/`/g, '')));
  return out;
}

function linksOf(markdown: string): string[] {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
}

describe('documents', () => {
  it('the README begins with exactly its two commands', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const first = /^# RLM Studio\n\n```sh\n([\s\S]*?)\n```\n/.exec(readme);
    expect(first).not.toBeNull();
    const lines = first![1]!.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\.\/bin\/rlm-studio demo\s+#/);
    expect(lines[1]).toMatch(/^\.\/bin\/test\s+#/);
  });

  it('has the architecture, the differences from the reference and the performance notes, linked from the README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    for (const doc of ['docs/architecture.md', 'docs/differences.md', 'docs/performance.md']) {
      expect(existsSync(join(root, doc))).toBe(true);
      expect(readme).toContain(`](${doc})`);
    }
  });

  for (const doc of documents) {
    it(`${doc}: every relative link reaches a file and heading in the repository`, () => {
      const text = readFileSync(join(root, doc), 'utf8');
      const broken: string[] = [];
      for (const link of linksOf(text)) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? join(root, doc) : resolve(dirname(join(root, doc)), path);
        if (!target.startsWith(root) || !existsSync(target)) {
          broken.push(`${link} (no such file)`);
          continue;
        }
        if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${link} (no such heading)`);
        }
      }
      expect(broken).toEqual([]);
      expect(text).not.toMatch(/\.\.\/shared\/|\/work\/shared/);
    });
  }
});
