import { describe, expect, it } from 'vitest';
import { logStats, reduceEvents } from '../../../src-shared/trajectory/index.ts';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { fixtureEvents, manualStore } from './helpers.ts';

describe('studio store', () => {
  it('folds events once per frame and matches the shared reducer', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const { store, runFrames } = manualStore();
    store.getState().addLocalSession('s', 'c');
    const revs: number[] = [];
    store.subscribe((s) => revs.push(s.sessions.get('s')!.rev));
    // Events arrive one message at a time (a live run); the store commits per frame.
    for (const e of events) store.getState().ingestEvents('s', [e]);
    expect(store.getState().sessions.get('s')!.rev).toBe(0);
    runFrames();
    const entry = store.getState().sessions.get('s')!;
    expect(entry.rev).toBe(1);
    expect(entry.events).toHaveLength(events.length);
    expect(logStats(entry.traj)).toEqual(logStats(reduceEvents(events)));
  });

  it('spreads a large batch over frames within the time budget', () => {
    const base = fixtureEvents('c_recursive.jsonl');
    // 60,000 events: the fixture repeated with fresh seqs and run ids.
    const many: TrajectoryEvent[] = [];
    for (let k = 0; many.length < 60_000; k++) {
      for (const e of base)
        many.push({
          ...e,
          seq: many.length,
          runId: `${e.runId}-${k}` as TrajectoryEvent['runId'],
          parentRunId: e.parentRunId ? (`${e.parentRunId}-${k}` as TrajectoryEvent['runId']) : null,
        });
    }
    // Every clock read advances 3 ms: the 8 ms budget stops a frame after a few strides.
    const m = manualStore(3);
    const { store } = m;
    store.getState().addLocalSession('s', 'big');
    store.getState().ingestEvents('s', many);
    let frames = 0;
    while (m.frames.length > 0) {
      m.runFrames(1);
      frames++;
    }
    expect(frames).toBeGreaterThan(10);
    expect(store.getState().sessions.get('s')!.events).toHaveLength(many.length);
    expect(store.getState().sessions.get('s')!.traj.runs.size).toBe(reduceEvents(many).runs.size);
  });

  it('spaces out the commits of a file load whose batches arrive slower than they fold, the first at once and the last on its end', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const m = manualStore();
    const { store } = m;
    store.getState().addLocalSession('f', 'file');
    store.getState().addLocalSession('live', 'live');
    const revs = (id: string): number => store.getState().sessions.get(id)!.rev;
    store.beginBulk('f');
    // Ten batches, each folded before the next arrives 30 ms later (the worker is the slower side).
    const batches = 10;
    const size = Math.ceil(events.length / batches);
    for (let b = 0; b < batches; b++) {
      store.getState().ingestEvents('f', events.slice(b * size, (b + 1) * size));
      m.runFrames(1);
      m.advance(30);
      // A live session in the meantime still commits at every frame.
      store.getState().ingestEvents('live', [events[b] as TrajectoryEvent]);
      m.runFrames(1);
    }
    expect(revs('live')).toBe(batches);
    // The first batch at once, then one commit per 250 ms of loading (300 ms here): at most 2 more.
    const during = revs('f');
    expect(during).toBeGreaterThanOrEqual(1);
    expect(during).toBeLessThanOrEqual(3);
    expect(store.settled()).toBe(false);
    store.endBulk('f');
    m.runFrames();
    expect(revs('f')).toBe(during + 1);
    expect(store.settled()).toBe(true);
    expect(store.getState().sessions.get('f')!.events).toHaveLength(events.length);

    // Without a file load, the same arrivals commit at every batch (a live stream).
    store.getState().addLocalSession('g', 'again');
    for (let b = 0; b < batches; b++) {
      store.getState().ingestEvents('g', events.slice(b * size, (b + 1) * size));
      m.runFrames(1);
      m.advance(30);
    }
    expect(revs('g')).toBe(batches);
  });
});
