// At most a few interpreters start at once in a process. A start is CPU work (~0.3 s alone);
// an evaluation's 64 sessions starting together on two cores each ran ~30 times slower, past
// the time limits of their first operations ("the REPL could not be set up: Script execution
// timed out": 26 to 63 of 64 sessions in `eval --parallel 64 --repl python` under load),
// where starting them a few at a time makes each one as quick as alone.
import { availableParallelism } from 'node:os';

/** Runs work with at most `slots` at once, the rest in order of arrival. */
export class StartGate {
  readonly #slots: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`a start gate needs at least one slot, not ${slots}`);
    this.#slots = slots;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#slots) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes to the next in line (the count stays); else it is freed.
      if (next) next();
      else this.#running--;
    }
  }

  /** Work in progress (tests). */
  get running(): number {
    return this.#running;
  }

  /** Work waiting for a slot (tests). */
  get waiting(): number {
    return this.#waiting.length;
  }
}

/** One start per core: more at once only share the same cores. */
export const interpreterStarts = new StartGate(Math.max(1, availableParallelism()));
