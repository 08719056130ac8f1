// A session worker's other job: re-executing a recorded session (`session.rerun`). Runs in
// the worker for the same reason live sessions do: the REPLs may take the process down.
import { checkEvent } from '../../src-shared/codecs/native.ts';
import { type EventSink, languageOfChoice, type TrajectoryEvent } from '../../src-shared/events.ts';
import type { ContextSource } from '../../src-shared/protocol.ts';
import type { ToolSpec } from '../engine/config.ts';
import { loadToolsModule } from '../engine/tools-module.ts';
import { reexecute, type ReexecuteResult } from '../rerun/re-execute.ts';
import { replFactoryFor } from '../engine/conversation.ts';
import { planRerun, readRecordedLog, recordedLogFromEvents, rerunReplOptions, type RecordedLog } from '../rerun/rerun-log.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import type { RerunSpec } from './worker-protocol.ts';

async function recordedLog(spec: RerunSpec): Promise<RecordedLog> {
  if (spec.source.kind === 'file') return readRecordedLog(spec.source.path);
  const events: TrajectoryEvent[] = [];
  for (const raw of spec.source.events) {
    const c = checkEvent(raw);
    if (!c.ok) throw new Error(`the recorded session has an invalid event: ${c.message}`);
    events.push(c.value);
  }
  return recordedLogFromEvents('the recorded session', spec.format, null, events);
}

function contextLabel(c: ContextSource): string {
  switch (c.kind) {
    case 'file':
      return `context file ${c.path}`;
    case 'demo':
      return `the ${c.name} demo context`;
    default:
      return `the ${c.kind} context given`;
  }
}

/** What the session's status message says when a re-execution ends. */
export function rerunSummary(r: ReexecuteResult): string {
  return `re-executed ${r.blocks} block(s): ${r.same} same, ${r.different.length} different`;
}

export async function rerunInWorker(
  spec: RerunSpec,
  context: SandboxValue,
  sink: EventSink,
  signal: AbortSignal,
): Promise<ReexecuteResult> {
  const log = await recordedLog(spec);
  const tools: Record<string, ToolSpec> = spec.tools === null ? {} : await loadToolsModule(spec.tools);
  // The app gives one context: the same for every turn of a multi-turn log.
  const plan = planRerun({ ...log, format: spec.format }, [context], [contextLabel(spec.context)], languageOfChoice(spec.repl));
  return reexecute({
    state: log.state,
    terms: plan.terms,
    contexts: [context],
    createRepl: replFactoryFor(plan.language, spec.repl === 'cpython' ? {} : undefined),
    replOptions: rerunReplOptions(tools),
    sink,
    signal,
  });
}
