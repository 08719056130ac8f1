// Hand-built sessions for the coverage tests, in both log formats: a root run whose turns
// print given outputs and make given sub-calls (plain or child runs), then answer.
import { asCallId, asRunId, type ChatMessage, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import { Script, runStart, type RunCtx } from '../trajectory/synthetic.ts';

export interface TurnSpec {
  /** What the turn's block printed (the whole stdout; the model is shown at most 20,000 characters). */
  stdout: string;
  calls?: { kind: 'llm' | 'rlm'; prompt: string }[];
}

/** A deterministic log-like context: numbered lines of varied fields, a needle line at `needleLine`. */
export function makeContext(lines: number, needleLine: number): { context: string; needle: string } {
  let seed = 12345;
  const rnd = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const users = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
  const actions = ['edit', 'upload', 'export', 'delete', 'view'];
  const needle = `[${String(needleLine).padStart(6, '0')}] NOTE from admin: the secret access code is 7-ALPHA-2931`;
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(
      i === needleLine
        ? needle
        : `[${String(i).padStart(6, '0')}] user=${users[rnd(6)]} action=${actions[rnd(5)]} item=${rnd(100000)} status=${rnd(2) ? 'ok' : 'denied'}`,
    );
  }
  return { context: `${out.join('\n')}\n`, needle };
}

const CAP = 20_000;
/** The REPL-output message as our engine writes it for one block. */
function nativeShown(stdout: string): string {
  const text = stdout.replace(/\n$/, '') || 'No output';
  return `REPL output:\n${text.length <= CAP ? text : `${text.slice(0, CAP)}\n... [${text.length - CAP} more characters cut]`}`;
}

/** A native session: one turn per spec, then a turn that answers. */
export function nativeSession(turns: TurnSpec[]): TrajectoryEvent[] {
  const s = new Script();
  const root: RunCtx = { runId: asRunId('root'), parentRunId: null, depth: 0 };
  const e = { runId: root.runId, parentRunId: null, depth: 0 };
  runStart(s, root, 0);
  const all = [...turns, { stdout: '' }];
  let n = 0;
  all.forEach((turn, i) => {
    const it = i + 1;
    const last = i === all.length - 1;
    s.emit({
      type: 'iteration.start',
      ...e,
      iteration: it,
      appended: [{ role: 'user', content: `Turn ${it}` }],
      historyLength: 2 + it,
      historyTokens: 10,
    });
    s.emit({
      type: 'model.reply',
      ...e,
      iteration: it,
      purpose: 'turn',
      model: 'm',
      text: `reply ${it}`,
      usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 },
      latencyMs: 1,
    });
    s.emit({ type: 'block.start', ...e, iteration: it, block: 0, code: `code ${it}` });
    for (const c of turn.calls ?? []) {
      const callId = asCallId(`c${n++}`);
      const child: RunCtx | null = c.kind === 'rlm' ? { runId: asRunId(`root/${callId}`), parentRunId: root.runId, depth: 1 } : null;
      s.emit({
        type: 'subcall.start',
        ...e,
        callId,
        iteration: it,
        block: 0,
        kind: c.kind,
        leaf: false,
        prompt: c.prompt,
        model: 'm',
        batch: null,
        childRunId: child?.runId ?? null,
      });
      if (child) {
        const ce = { runId: child.runId, parentRunId: root.runId, depth: 1 };
        runStart(s, child, 0, { runId: root.runId, iteration: it, block: 0, callId });
        s.emit({ type: 'iteration.start', ...ce, iteration: 1, appended: [], historyLength: 2, historyTokens: 1 });
        s.emit({
          type: 'model.reply',
          ...ce,
          iteration: 1,
          purpose: 'turn',
          model: 'm',
          text: 'child',
          usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 },
          latencyMs: 1,
        });
        s.emit({ type: 'iteration.end', ...ce, iteration: 1, appended: [], finalAnswer: 'x', durationMs: 1 });
        s.emit({
          type: 'run.end',
          ...ce,
          answer: 'x',
          stopReason: 'answered',
          message: null,
          iterations: 1,
          durationMs: 1,
          usage: { inputTokens: 1, outputTokens: 1, costUsd: 0, calls: 1 },
        });
      }
      s.emit({
        type: 'subcall.end',
        ...e,
        callId,
        response: 'ok',
        error: null,
        usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 },
        latencyMs: 1,
      });
    }
    s.emit({
      type: 'block.end',
      ...e,
      iteration: it,
      block: 0,
      stdout: turn.stdout,
      stderr: '',
      error: null,
      durationMs: 1,
      cpuMs: 1,
      submitted: last ? 'done' : null,
      variables: [],
      replReset: null,
    });
    const appended: ChatMessage[] = [
      { role: 'assistant', content: `reply ${it}` },
      { role: 'user', content: nativeShown(turn.stdout) },
    ];
    s.emit({ type: 'iteration.end', ...e, iteration: it, appended, finalAnswer: last ? 'done' : null, durationMs: 1 });
  });
  s.emit({
    type: 'run.end',
    ...e,
    answer: 'done',
    stopReason: 'answered',
    message: null,
    iterations: all.length,
    durationMs: 1,
    usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 0 },
  });
  return s.events;
}

/** The reference library's REPL-output message for one block (RLM-SPEC §5.2), cut at 20,000. */
function referenceShown(stdout: string): string {
  const body = stdout ? `\n${stdout}` : 'No output';
  return `REPL output:\n${body.length <= CAP ? body : `${body.slice(0, CAP)}... + [${body.length - CAP} chars...]`}`;
}

/** The same session as the reference library's JSONL, written line by line as its logger does. */
export function referenceLog(turns: TurnSpec[]): string {
  const lines: object[] = [
    {
      type: 'metadata',
      timestamp: '2026-12-02T09:30:59.155653',
      root_model: 'm',
      max_depth: 2,
      max_iterations: 10,
      backend: 'openai',
      backend_kwargs: { model_name: 'm' },
      environment_type: 'local',
      environment_kwargs: {},
      other_backends: null,
    },
  ];
  const history: { role: string; content: string }[] = [
    { role: 'system', content: 'You are an RLM.' },
    { role: 'user', content: 'Your context is a str.' },
  ];
  const all = [...turns, { stdout: '' }];
  all.forEach((turn, i) => {
    const last = i === all.length - 1;
    const prompt = [...history, { role: 'user', content: `Turn ${i + 1}` }];
    const rlmCalls = (turn.calls ?? []).map((c) => ({
      root_model: 'm',
      prompt: c.prompt,
      response: 'ok',
      execution_time: 0.001,
      ...(c.kind === 'rlm'
        ? {
            metadata: {
              run_metadata: { root_model: 'm', max_depth: 2, max_iterations: 10 },
              iterations: [
                {
                  type: 'iteration',
                  iteration: 1,
                  timestamp: '2026-12-02T09:31:00.000000',
                  prompt: [{ role: 'user', content: 'child' }],
                  response: 'child',
                  code_blocks: [],
                  final_answer: 'x',
                  iteration_time: 0.001,
                },
              ],
            },
          }
        : {}),
    }));
    const code = last ? "answer['content'] = 'done'\nanswer['ready'] = True" : `step ${i + 1}`;
    lines.push({
      type: 'iteration',
      iteration: i + 1,
      timestamp: `2026-12-02T09:31:0${i}.000000`,
      prompt,
      response: `reply ${i + 1}`,
      code_blocks: [
        {
          code,
          result: {
            stdout: turn.stdout,
            stderr: '',
            locals: {},
            execution_time: 0.001,
            rlm_calls: rlmCalls,
            final_answer: last ? 'done' : null,
          },
        },
      ],
      final_answer: last ? 'done' : null,
      iteration_time: 0.01,
    });
    history.push(
      { role: 'user', content: `Turn ${i + 1}` },
      { role: 'assistant', content: `reply ${i + 1}` },
      { role: 'user', content: referenceShown(turn.stdout) },
    );
  });
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}

export function referenceEvents(turns: TurnSpec[]): TrajectoryEvent[] {
  const r = readRlmPythonText(referenceLog(turns));
  if (r.problems.some((p) => p.severity === 'error')) throw new Error(`reference log did not read: ${JSON.stringify(r.problems)}`);
  return r.events;
}
