// The built-in demo: contexts generated from a seed and the query each one goes with.
import type { SandboxValue } from '../sandbox/types.ts';
import { needleContext, reportContext, ticketsContext } from '../demo/contexts.ts';

export type DemoName = 'recursive' | 'needle' | 'aggregate';

export const DEMO_SCENARIOS: Record<DemoName, { query: string; maxDepth: number; title: string }> = {
  recursive: {
    query: 'Summarise each section of the report and what it found (recursive, per section).',
    maxDepth: 2,
    title: 'Demo: recursive report summary',
  },
  needle: { query: 'What is the magic number hidden in the context?', maxDepth: 1, title: 'Demo: needle in 2 MB' },
  aggregate: { query: 'How many tickets have the label billing?', maxDepth: 1, title: 'Demo: count 2000 tickets' },
};

export function demoContext(name: DemoName): SandboxValue {
  switch (name) {
    case 'recursive':
      return reportContext(6, 4000, 42).text;
    case 'needle':
      return needleContext(2_000_000, 42).text;
    case 'aggregate':
      return ticketsContext(2000, 42).items;
  }
}
