export * from './types.ts';
export * from './reducer.ts';
export * from './analytics.ts';
