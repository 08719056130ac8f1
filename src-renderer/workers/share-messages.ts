// The messages a reference log's runs all start with (the system prompt, 42% of what a child-
// run log's events weigh when sent to the page), made one object each before a batch is
// posted. Structured clone writes an object once per message and refers back to it after, so
// a batch carries each repeated message once, and the page receives one shared copy.
import type { ChatMessage, TrajectoryEvent } from '../../src-shared/events.ts';

/** Shorter messages are left alone (the lookup costs more than the bytes saved). */
const MIN_CHARS = 256;

export class MessageSharer {
  /** By role, then content (no key is built: a content string hashes once). */
  private readonly known = new Map<string, Map<string, ChatMessage>>();

  /** Replaces, in place, each long message of a run's start by the first equal one seen. */
  share(e: TrajectoryEvent): void {
    if (e.type !== 'run.start' && e.type !== 'compaction') return;
    const list = e.messages;
    for (let i = 0; i < list.length; i++) {
      const m = list[i] as ChatMessage;
      if (m.content.length < MIN_CHARS) continue;
      let byContent = this.known.get(m.role);
      if (byContent === undefined) this.known.set(m.role, (byContent = new Map()));
      const first = byContent.get(m.content);
      if (first === undefined) byContent.set(m.content, m);
      else list[i] = first;
    }
  }
}
