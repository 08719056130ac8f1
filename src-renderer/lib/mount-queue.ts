// Editors are created one per task: an iteration shows several (code and output per block)
// and each costs 50–120 ms here, so mounting them in one React commit made one long task.
// Until its turn a view shows its text in a <pre>. While a log loads, no editor is created
// at all: each costs the main thread 50–300 ms that the load needs (folding events, and on
// two cores the parse worker's own CPU), and the views show the same text meanwhile.
const waiting: (() => void)[] = [];
let busy = false;
let holds = 0;
let anyHold = false;
/** Called when the last hold is released. */
const freed: (() => void)[] = [];

function nextMount(): void {
  const go = holds > 0 ? undefined : waiting.shift();
  if (!go) {
    busy = false;
    return;
  }
  busy = true;
  setTimeout(go, 0);
}

/**
 * Queues an editor's creation: `start` is called at its turn with `done`, which the editor
 * calls once it exists (the queue moves on; after 2 s it moves on anyway). Returns the
 * cancel to call when the view goes away.
 */
export function enqueueMount(start: (done: () => void) => void): () => void {
  let live = true;
  let started = false;
  let finished = false;
  let safety: ReturnType<typeof setTimeout> | undefined;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    clearTimeout(safety);
    nextMount();
  };
  const go = (): void => {
    started = true;
    if (!live) return finish();
    // An editor that never reports (it failed to load) must not hold the queue.
    safety = setTimeout(finish, 2000);
    start(finish);
  };
  waiting.push(go);
  if (!busy) nextMount();
  return () => {
    live = false;
    if (started) finish();
    else {
      const i = waiting.indexOf(go);
      if (i >= 0) waiting.splice(i, 1);
    }
  };
}

/** Holds editor creation until the returned release is called (a log loading); holds nest. */
export function holdEditors(): () => void {
  holds++;
  anyHold = true;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds--;
    if (holds > 0) return;
    for (const f of freed.splice(0)) f();
    if (!busy) nextMount();
  };
}

/** True once any log has started loading in this page. */
export function anyLoadStarted(): boolean {
  return anyHold;
}

/** True while a log is loading. */
export function editorsHeld(): boolean {
  return holds > 0;
}

/** Resolves when no log is loading (at once when none is): the Monaco prewarm waits on it. */
export function editorsFree(): Promise<void> {
  if (holds === 0) return Promise.resolve();
  return new Promise((resolve) => freed.push(resolve));
}
