// Stamps event drafts (version, sequence, time since the recording started, wall clock) and hands
// them to every listener in order. The engine only sees the EventSink side.
import { EVENT_SCHEMA_VERSION, type EventDraft, type EventSink, type TrajectoryEvent } from '../../src-shared/events.ts';

export type EventListener = (event: TrajectoryEvent) => void;

export class EventRecorder implements EventSink {
  private seq = 0;
  private readonly origin = performance.now();
  private readonly listeners: EventListener[] = [];

  constructor(...listeners: EventListener[]) {
    this.listeners.push(...listeners);
  }

  listen(listener: EventListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Milliseconds since this recording started (events' `t`). */
  now(): number {
    return performance.now() - this.origin;
  }

  emit(draft: EventDraft): void {
    const event = {
      ...draft,
      v: EVENT_SCHEMA_VERSION,
      seq: this.seq++,
      t: Math.round(this.now() * 1000) / 1000,
      ts: new Date().toISOString(),
    };
    for (const listener of this.listeners) listener(event);
  }
}
