// The residues the fidelity audit found (issue 37): state and answers lost around cancels,
// deadlines and killed blocks, tool arguments and errors mangled on the way, and what a limit
// stop leaves behind. Each test failed before its fix. Both REPLs where the residue concerns
// both; the Python tools and a submission cross the sandbox process as `run` and `chat` use it.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ReplLanguage, TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, type ReplFactory, RlmConversation, type RlmConfig } from '../../../src-main/engine/index.ts';
import { defaultPack } from '../../../src-main/lm/our-prompt-packs.ts';
import { SandboxProcess } from '../../../src-main/engine/sandbox-process/sandbox-process.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { fakeBridge, SITE } from '../sandbox/helpers.ts';
import { ofType, repl } from './harness.ts';

const servers: MockLlmServer[] = [];
const sessions: RlmConversation[] = [];
const processes: SandboxProcess[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) s.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const p of processes) p.close();
});

/** A sub-call endpoint that never answers in a test's time: a block calling it waits there. */
const SLOW_MS = 120_000;

interface Opened {
  session: RlmConversation;
  events: TrajectoryEvent[];
  root: MockLlmServer;
  /** Aborts `signal` once an event matches (a cancel at a known point of the run). */
  cancelOn(match: (e: TrajectoryEvent) => boolean): AbortSignal;
}

async function open(
  language: ReplLanguage,
  policy: Policy,
  config: Partial<RlmConfig> = {},
  opts: { persistent?: boolean; slowSubcalls?: boolean; sandboxProcess?: boolean } = {},
): Promise<Opened> {
  // Python under a deadline: the interpreter is started (and a spare kept) before the clock runs.
  const warm = language === 'python' && config.maxTimeoutMs !== undefined;
  if (warm && !opts.sandboxProcess) throw new Error('a Python test with a deadline runs its REPL in a warmed sandbox process');
  const root = await startMockLlm({ policy, recordRequests: true, recordTexts: true });
  servers.push(root);
  const client = new OpenAiCompatibleClient({ baseUrl: root.url, apiKey: 'test', maxRetries: 0 });
  let subClient: OpenAiCompatibleClient | undefined;
  if (opts.slowSubcalls) {
    const slow = await startMockLlm({ policy: () => 'too late', latencyMs: SLOW_MS });
    servers.push(slow);
    subClient = new OpenAiCompatibleClient({ baseUrl: slow.url, apiKey: 'test', maxRetries: 0 });
  }
  let replFactory: ReplFactory | undefined;
  if (opts.sandboxProcess) {
    const p = new SandboxProcess();
    processes.push(p);
    replFactory = p.replFactory(language);
    if (warm) {
      const first = await replFactory({ bridge: fakeBridge() });
      await first.execute('1', SITE);
      first.dispose();
      p.warmPython();
    }
  }
  const events: TrajectoryEvent[] = [];
  const watchers: ((e: TrajectoryEvent) => void)[] = [];
  const recorder = new EventRecorder((e) => {
    events.push(e);
    for (const w of watchers) w(e);
  });
  const session = new RlmConversation(
    { client, model: 'mock-root', repl: language, ...(subClient ? { subClient } : {}), ...config },
    { sink: recorder, persistent: opts.persistent ?? false, ...(replFactory ? { replFactory } : {}) },
  );
  sessions.push(session);
  return {
    session,
    events,
    root,
    cancelOn(match) {
      const controller = new AbortController();
      watchers.push((e) => {
        if (match(e)) controller.abort();
      });
      return controller.signal;
    },
  };
}

/** The code of each language for the same step. */
const code = {
  javascript: {
    keep: 'var kept = 41;',
    keepThenSlowCall: 'var kept = 41;\nllm_query("slow");',
    report:
      'answer.content = [typeof kept === "undefined" ? "lost" : String(kept + 1), context_0, context_1].join("|"); answer.ready = true;',
    submitThenSlowCall: 'answer.content = "early"; answer.ready = true;\nllm_query("slow");',
    fail: 'null.x;',
    spin: 'while (true) {}',
    historyOf0: 'answer.content = typeof history_0 === "undefined" ? "none" : String(history_0.length); answer.ready = true;',
  },
  python: {
    keep: 'kept = 41',
    keepThenSlowCall: 'kept = 41\nllm_query("slow")',
    report:
      'answer["content"] = "|".join([str(kept + 1) if "kept" in globals() else "lost", context_0, context_1])\nanswer["ready"] = True',
    submitThenSlowCall: 'answer["content"] = "early"\nanswer["ready"] = True\nllm_query("slow")',
    fail: 'None.x',
    spin: 'while True:\n    pass',
    historyOf0: 'answer["content"] = str(len(history_0)) if "history_0" in globals() else "none"\nanswer["ready"] = True',
  },
} as const;

const LANGUAGES: ReplLanguage[] = ['javascript', 'python'];

describe.each(LANGUAGES)('a cancelled turn of a persistent session (%s)', (language) => {
  const c = code[language];

  it('keeps the REPL when the cancel fell between blocks: the next turn has the variables', async () => {
    const policy: Policy = (req) => {
      const q = classify(req);
      if (q.query === 'second') return repl(c.report);
      return repl(c.keep);
    };
    const o = await open(language, policy, {}, { persistent: true });
    // Cancelled as the second model call of the first turn goes out, after its first block ran.
    const signal = o.cancelOn((e) => e.type === 'iteration.start' && e.iteration === 2 && e.depth === 0);
    expect((await o.session.completion('A', 'first', { signal })).stopReason).toBe('cancelled');
    const next = await o.session.completion('B', 'second');
    expect(next).toMatchObject({ stopReason: 'answered', answer: '42|A|B' });
    const noted = o.root.requests().some((r) => r.messages.some((m) => m.content?.includes(defaultPack(language).texts.replLost)));
    expect(noted).toBe(false);
  });

  it('tells the model when the cancel cut a block: a fresh REPL with every context, and a note', async () => {
    const policy: Policy = (req) => {
      const q = classify(req);
      if (q.query === 'the second question') return repl(c.report);
      return repl(c.keepThenSlowCall);
    };
    const o = await open(language, policy, {}, { persistent: true, slowSubcalls: true });
    const signal = o.cancelOn((e) => e.type === 'subcall.start');
    expect((await o.session.completion('A', 'first', { signal })).stopReason).toBe('cancelled');
    const next = await o.session.completion('B', 'the second question');
    expect(next).toMatchObject({ stopReason: 'answered', answer: 'lost|A|B' });
    // The note goes with the next turn's first request, once.
    const noted = o.root.requests().filter((r) => r.messages.some((m) => m.content?.includes(defaultPack(language).texts.replLost)));
    expect(noted).toHaveLength(1);
    const firstOfSecond = o.root.requests().find((r) => r.messages.some((m) => m.content?.includes('the second question')));
    expect(firstOfSecond?.n).toBe(noted[0]!.n);
  });
});

describe.each(LANGUAGES)('a REPL of the sandbox process (%s), as chat and run have it', (language) => {
  it('stops its running block when disposed (a persistent session drops it after a cancel that cut a block)', async () => {
    const p = new SandboxProcess();
    processes.push(p);
    // Limits far away: only the disposal can end the block.
    const r = await p.replFactory(language)({ bridge: fakeBridge(), cpuLimitMs: 600_000, wallLimitMs: 600_000 });
    await r.addContext(0, 'x');
    const running = r.execute(code[language].spin, SITE);
    r.dispose();
    const ended = await running.then(
      (res) => res.error?.message ?? '',
      (err: unknown) => (err as Error).message,
    );
    expect(ended).toMatch(/disposed/);
  });
});

describe.each(LANGUAGES)('an answer submitted in a block the deadline cuts (%s)', (language) => {
  it('wins: the run ends answered, not max_timeout', async () => {
    // The block must start before the deadline: room for a loaded machine's model call and REPL.
    const maxTimeoutMs = language === 'python' ? 10_000 : 3_000;
    const o = await open(
      language,
      () => repl(code[language].submitThenSlowCall),
      { maxTimeoutMs },
      {
        slowSubcalls: true,
        // Python through the sandbox process, as `run --repl python` has it.
        sandboxProcess: language === 'python',
      },
    );
    const out = await o.session.completion('c', 'q');
    expect(out).toMatchObject({ stopReason: 'answered', answer: 'early' });
    expect(ofType(o.events, 'iteration.end')[0]!.finalAnswer).toBe('early');
    expect(ofType(o.events, 'block.end')[0]).toMatchObject({ submitted: 'early', error: { name: 'TimeoutError' } });
    expect(ofType(o.events, 'limit')).toEqual([]);
  });
});

describe('a Python block that submits and is then killed', () => {
  const submitThen = (rest: string): string => repl(`answer["content"] = "kept"\nanswer["ready"] = True\n${rest}`);

  it.each([
    ['CPU', { blockCpuMs: 500, blockWallMs: 60_000 }, 'while True:\n    pass', 'cpu_limit'],
    ['wall', { blockCpuMs: 60_000, blockWallMs: 500 }, 'while True:\n    pass', 'wall_limit'],
  ] as const)('for %s time keeps the answer', async (_name, sandbox, rest, reason) => {
    const o = await open('python', () => submitThen(rest), { sandbox: { memoryLimitMb: 512, ...sandbox } });
    const out = await o.session.completion('c', 'q');
    expect(out).toMatchObject({ stopReason: 'answered', answer: 'kept' });
    expect(ofType(o.events, 'repl.reset')[0]).toMatchObject({ reason });
  });
});

describe('a custom tool called from Python in the sandbox process', () => {
  it('gets its keyword arguments by parameter name', async () => {
    const policy: Policy = () => repl('answer["content"] = convert(12.5, to="USD") + "," + convert(amount=3)\nanswer["ready"] = True');
    const tools = { convert: { value: (amount: unknown, to: unknown = 'EUR') => `${String(amount)} ${String(to)}` } };
    const o = await open('python', policy, { tools }, { sandboxProcess: true });
    const out = await o.session.completion('c', 'q');
    expect(ofType(o.events, 'block.end')[0]!.error).toBeNull();
    expect(out).toMatchObject({ stopReason: 'answered', answer: '12.5 USD,3 EUR' });
  });
});

describe('a JavaScript tool that throws, called from Python', () => {
  class QuotaError extends Error {
    override name = 'QuotaError';
  }
  const tools = {
    quota: {
      value: () => {
        throw new QuotaError('quota exceeded for today');
      },
    },
    plain: {
      value: () => {
        throw new Error('no such row');
      },
    },
  };

  it.each([
    ['in process', false],
    ['in the sandbox process', true],
  ])('raises the tool’s own error type and message (%s)', async (_where, sandboxProcess) => {
    const policy: Policy = (req) =>
      classify(req).turn === 1
        ? repl('try:\n    quota()\nexcept Exception as e:\n    print(type(e).__name__, "|", e)\nplain()')
        : repl('answer["content"] = "done"\nanswer["ready"] = True');
    const o = await open('python', policy, { tools }, { sandboxProcess });
    await o.session.completion('c', 'q');
    const end = ofType(o.events, 'block.end')[0]!;
    expect(end.stdout).toBe('QuotaError | quota exceeded for today\n');
    expect(end.error).toEqual({ name: 'Error', message: 'no such row' });
  });
});

describe('what a limit stop leaves', () => {
  const failing = (label: string): string => `${label}\n${repl(code.javascript.fail)}`;

  it('the partial answer after max_errors is the reply before the turn that tripped it, as the reference', async () => {
    const o = await open('javascript', (req) => failing(`reply of turn ${classify(req).turn}`), { maxErrors: 2 });
    const out = await o.session.completion('c', 'q');
    expect(out.stopReason).toBe('max_errors');
    expect(out.answer).toBe(failing('reply of turn 1'));
  });

  it('the partial answer after max_tokens is the reply before the turn that tripped it, as the reference', async () => {
    // Turn 2's reply alone is far over the limit; turn 1's request and reply are far under it.
    const policy: Policy = (req) =>
      classify(req).turn === 1 ? `first look\n${repl('print(1);')}` : `${'x'.repeat(40_000)}\n${repl('print(2);')}`;
    const o = await open('javascript', policy, { maxTokens: 6_000 });
    const out = await o.session.completion('c', 'q');
    expect(out.stopReason).toBe('max_tokens');
    expect(out.answer?.slice(0, 10)).toBe('first look');
  });

  it.each(LANGUAGES)('a turn that ended on a limit is history_0 of the next turn (%s)', async (language) => {
    const c = code[language];
    const policy: Policy = (req) => (classify(req).query === 'second' ? repl(c.historyOf0) : repl(c.fail));
    const o = await open(language, policy, { maxErrors: 1 }, { persistent: true });
    expect((await o.session.completion('A', 'first')).stopReason).toBe('max_errors');
    const next = await o.session.completion('B', 'second');
    expect(next.stopReason).toBe('answered');
    // system, metadata, the turn prompt, the reply, its output
    expect(next.answer).toBe('5');
  });

  it.each(LANGUAGES)(
    'a turn the deadline ended mid-block is history_0 of the next, which is told its REPL is new (%s)',
    async (language) => {
      const c = code[language];
      const policy: Policy = (req) => (classify(req).query === 'second' ? repl(c.historyOf0) : repl(c.spin));
      // The block would spin until its CPU limit (a minute): the conversation must not wait for it.
      const sandbox = { memoryLimitMb: 512, blockCpuMs: 600_000, blockWallMs: 600_000 };
      const o = await open(language, policy, { maxTimeoutMs: 3_000, sandbox }, { persistent: true, sandboxProcess: language === 'python' });
      expect((await o.session.completion('A', 'first')).stopReason).toBe('max_timeout');
      const next = await o.session.completion('B', 'second');
      expect(next.stopReason).toBe('answered');
      // system, metadata, the turn prompt (the reply was cut off with its block)
      expect(next.answer).toBe('3');
      expect(
        o.root.requests().filter((r) => r.messages.some((m) => m.content?.includes(defaultPack(language).texts.replLost))),
      ).toHaveLength(1);
    },
  );
});
