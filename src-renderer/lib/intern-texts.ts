// One copy of each long text that a log repeats. Every run of a reference log starts with
// the same system prompt, and sub-calls often share a prompt; each arrives from the parse
// worker as its own copy (structured clone does not share strings between messages). In a
// 10 MB child-run log the system prompt alone was 208 copies, 2.2 MB of the page's heap.
// Only message contents, sub-call prompts and the logged values of variables (a reference
// log logs the context after every block) are looked at: the texts a log repeats.
import type { ChatMessage, TrajectoryEvent } from '../../src-shared/events.ts';

/** Shorter texts are left alone (a lookup costs more than the copy). */
const MIN_CHARS = 128;

export class TextInterner {
  private readonly texts = new Map<string, string>();

  /** Replaces repeated long texts in `events` (in place) by their first copy. */
  intern(events: readonly TrajectoryEvent[]): void {
    for (const e of events) {
      switch (e.type) {
        case 'run.start':
          this.messages(e.messages);
          break;
        case 'iteration.start':
        case 'iteration.end':
          this.messages(e.appended);
          break;
        case 'compaction':
          this.messages(e.messages);
          break;
        case 'subcall.start':
          e.prompt = this.one(e.prompt);
          break;
        case 'block.end':
          if (e.locals) for (const k of Object.keys(e.locals)) if (typeof e.locals[k] === 'string') e.locals[k] = this.one(e.locals[k]);
          break;
        default:
          break;
      }
    }
  }

  private messages(list: ChatMessage[]): void {
    for (const m of list) m.content = this.one(m.content);
  }

  private one(text: string): string {
    if (text.length < MIN_CHARS) return text;
    const known = this.texts.get(text);
    if (known !== undefined) return known;
    this.texts.set(text, text);
    return text;
  }
}
