export * from './types.ts';
export * from './reducer.ts';
export * from './totals.ts';
export * from './log-stats.ts';
export * from './critical-path.ts';
export * from './distributions.ts';
