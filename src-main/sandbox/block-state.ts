// What the host keeps of one running block, for either REPL: its output (capped) and the
// time it spent blocked in host calls, which the wall-time limit does not count.
import type { CallSite } from './types.ts';

/** Host-side text of one stream for one block, capped. */
export class OutputBuffer {
  readonly #cap: number;
  #parts: string[] = [];
  #length = 0;
  #hostDropped = 0;
  #isolateDropped = 0;

  constructor(cap: number) {
    this.#cap = cap;
  }

  append(text: string, isolateDropped: number): void {
    this.#isolateDropped = Math.max(this.#isolateDropped, isolateDropped);
    const room = this.#cap - this.#length;
    if (room <= 0) {
      this.#hostDropped += text.length;
      return;
    }
    const kept = text.length > room ? text.slice(0, room) : text;
    this.#hostDropped += text.length - kept.length;
    if (kept) this.#parts.push(kept);
    this.#length += kept.length;
  }

  noteDropped(isolateDropped: number): void {
    this.#isolateDropped = Math.max(this.#isolateDropped, isolateDropped);
  }

  text(): string {
    const body = this.#parts.join('');
    const dropped = this.#hostDropped + this.#isolateDropped;
    if (dropped === 0) return body;
    const sep = body === '' || body.endsWith('\n') ? '' : '\n';
    return `${body}${sep}[... ${dropped} more characters not captured]\n`;
  }
}

/** Per-execute state the host-side hooks write into. */
export class BlockState {
  readonly site: CallSite;
  readonly stdout: OutputBuffer;
  readonly stderr: OutputBuffer;
  submitted: string | null = null;
  active = true;
  #blockedMs = 0;
  #blockedSince: number | null = null;

  constructor(site: CallSite, cap: number) {
    this.site = site;
    this.stdout = new OutputBuffer(cap);
    this.stderr = new OutputBuffer(cap);
  }

  enterBridge(): void {
    this.#blockedSince = performance.now();
  }

  leaveBridge(): void {
    if (this.#blockedSince !== null) this.#blockedMs += performance.now() - this.#blockedSince;
    this.#blockedSince = null;
  }

  /** Time spent waiting on the host (sub-calls, tools), including a call still in flight. */
  blockedMs(now: number): number {
    return this.#blockedMs + (this.#blockedSince === null ? 0 : now - this.#blockedSince);
  }
}
