// A folder of generated native logs with known answers to the tree queries of issue 13, for
// the query tests and bench/queries.ts. Session i:
//   - its root answers when i is even, else stops at its iteration limit;
//   - its root makes one plain llm_query whose prompt has 100,001 characters when i % 5 = 0
//     (50 otherwise), and one rlm_query whose child run (depth 1) answers;
//   - that child prints a stretch of its context (the rlm_query prompt) when i % 4 = 0, and
//     something else otherwise;
//   - when i % 3 = 0 the child spawns a grandchild (depth 2) that hits its iteration limit
//     and prints nothing of its context.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeNative } from '../../src-shared/codecs/native.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import { asCallId, asRunId, asSessionId, type RunId } from '../../src-shared/events.ts';
import { blockEnd, blockStart, iterEnd, iterStart, reply, runEnd, runStart, Script, type RunCtx } from '../unit/trajectory/synthetic.ts';

const BIG_PROMPT_CHARS = 100_001;

function childContext(i: number): string {
  return `Section ${i}: ${'the ledger for the northern warehouse lists every crate, its weight and its destination; '.repeat(4)}`;
}

function call(s: Script, r: RunCtx, id: string, iteration: number, kind: 'llm' | 'rlm', prompt: string, childRunId: RunId | null): void {
  s.emit({
    type: 'subcall.start',
    runId: r.runId,
    parentRunId: r.parentRunId,
    depth: r.depth,
    callId: asCallId(id),
    iteration,
    block: 0,
    kind,
    leaf: false,
    prompt,
    model: 'm-sub',
    batch: null,
    childRunId,
  });
}

function callEnd(s: Script, r: RunCtx, id: string, response: string): void {
  s.emit({
    type: 'subcall.end',
    runId: r.runId,
    parentRunId: r.parentRunId,
    depth: r.depth,
    callId: asCallId(id),
    response,
    error: null,
    usage: { inputTokens: 10, outputTokens: 2, costUsd: 0 },
    latencyMs: 20,
  });
}

/** A run that loops to its limit of 3 iterations without printing its context. */
function limitedRun(s: Script, r: RunCtx): void {
  for (let it = 1; it <= 3; it++) {
    iterStart(s, r, it);
    reply(s, r, it, `looking ${it}`);
    blockStart(s, r, it, 0, 'print("still looking")');
    blockEnd(s, r, it, 0, { stdout: 'still looking\n' });
    iterEnd(s, r, it, `looking ${it}`);
  }
  s.emit({ type: 'limit', runId: r.runId, parentRunId: r.parentRunId, depth: r.depth, limit: 'max_iterations', message: 'limit' });
  runEnd(s, r, null, 3, 100, 'max_iterations');
}

export function sessionEvents(i: number): Script {
  const s = new Script();
  const root: RunCtx = { runId: asRunId(`s${i}-root`), parentRunId: null, depth: 0 };
  const child: RunCtx = { runId: asRunId(`s${i}-child`), parentRunId: root.runId, depth: 1 };
  const grand: RunCtx = { runId: asRunId(`s${i}-grand`), parentRunId: child.runId, depth: 2 };
  runStart(s, root, 0);
  iterStart(s, root, 1);
  reply(s, root, 1, 'split the work');
  blockStart(s, root, 1, 0, 'llm_query(...); rlm_query(...)');
  const prompt = i % 5 === 0 ? 'x'.repeat(BIG_PROMPT_CHARS) : 'y'.repeat(50);
  call(s, root, `s${i}-llm`, 1, 'llm', prompt, null);
  callEnd(s, root, `s${i}-llm`, 'fine');
  const ctx = childContext(i);
  call(s, root, `s${i}-rlm`, 1, 'rlm', ctx, child.runId);
  runStart(s, child, 0, { runId: root.runId, iteration: 1, block: 0, callId: `s${i}-rlm` });
  iterStart(s, child, 1);
  reply(s, child, 1, 'read it');
  blockStart(s, child, 1, 0, 'print(context[:120])');
  if (i % 3 === 0) {
    call(s, child, `s${i}-deep`, 1, 'rlm', 'a deeper question about the ledger', grand.runId);
    runStart(s, grand, 0, { runId: child.runId, iteration: 1, block: 0, callId: `s${i}-deep` });
    limitedRun(s, grand);
    callEnd(s, child, `s${i}-deep`, 'no answer');
  }
  blockEnd(s, child, 1, 0, { stdout: i % 4 === 0 ? `${ctx.slice(5, 125)}\n` : 'nothing to show\n', submitted: 'child answer' });
  iterEnd(s, child, 1, 'read it', 'child answer');
  runEnd(s, child, 'child answer', 1, 50);
  callEnd(s, root, `s${i}-rlm`, 'child answer');
  blockEnd(s, root, 1, 0, { submitted: i % 2 === 0 ? 'done' : null });
  if (i % 2 === 0) {
    iterEnd(s, root, 1, 'split the work', 'done');
    runEnd(s, root, 'done', 1, 300);
  } else {
    iterEnd(s, root, 1, 'split the work');
    s.emit({ type: 'limit', runId: root.runId, parentRunId: null, depth: 0, limit: 'max_iterations', message: 'limit' });
    runEnd(s, root, null, 1, 300, 'max_iterations');
  }
  return s;
}

/** Writes `n` logs into `dir` (created) and returns their paths in order. */
export function writeSessionFolder(dir: string, n: number): string[] {
  mkdirSync(dir, { recursive: true });
  const paths: string[] = [];
  for (let i = 0; i < n; i++) {
    const path = join(dir, `session-${String(i).padStart(5, '0')}.rlm.jsonl`);
    const header = makeHeader(asSessionId(`gen-${i}`), new Date(Date.UTC(2026, 0, 1)));
    writeFileSync(path, [...encodeNative(header, sessionEvents(i).events)].join(''));
    paths.push(path);
  }
  return paths;
}

/** The answers the generated folder gives, by session index. */
export const KNOWN = {
  rootAnsweredDeepLimit: (i: number) => i % 6 === 0,
  bigPrompt: (i: number) => i % 5 === 0,
  childPrinted: (i: number) => i % 4 === 0,
  hasGrandchild: (i: number) => i % 3 === 0,
};
