// The marked sections of bench/RESULTS.md: a standalone bench replaces its own block, and the
// full run's rewrite carries every block over.
import { describe, expect, it } from 'vitest';
import { carryOver, markedSections, markSection, upsertSection } from '../../../bench/sections.ts';

const report = ['# Benchmark results', '', '## Sandbox', '', '| a |', ''].join('\n');

describe('bench sections', () => {
  it('appends a section the report lacks, then replaces it in place', () => {
    const once = upsertSection(report, 'queue', '## Queue\n\nfirst run: 7.3 ms');
    expect(once).toContain('## Sandbox');
    expect(markedSections(once)).toEqual(['<!-- bench:queue -->\n## Queue\n\nfirst run: 7.3 ms\n<!-- /bench:queue -->']);
    const withOther = upsertSection(once, 'coverage', '## Coverage\n\n$& 2 s');
    const twice = upsertSection(withOther, 'queue', '## Queue\n\nsecond run: 3.1 ms');
    expect(markedSections(twice)).toEqual([
      markSection('queue', '## Queue\n\nsecond run: 3.1 ms'),
      markSection('coverage', '## Coverage\n\n$& 2 s'),
    ]);
    expect(twice).not.toContain('first run');
  });

  it('a fresh report keeps the marked sections of the file it replaces, and only those', () => {
    const previous = upsertSection(`${report}\n## Old figures\n\nstale`, 'queue', '## Queue\n\nkept');
    const fresh = '# Benchmark results\n\n## Sandbox\n\n| b |\n';
    const next = carryOver(fresh, previous);
    expect(next.startsWith(fresh.trimEnd())).toBe(true);
    expect(next).toContain('## Queue\n\nkept');
    expect(next).not.toContain('stale');
    expect(carryOver(fresh, null)).toBe(fresh);
    expect(carryOver(next, next)).toBe(next);
  });

  it('refuses an id the markers cannot hold', () => {
    expect(() => markSection('two words', 'x')).toThrow(/bench section id/);
  });
});
