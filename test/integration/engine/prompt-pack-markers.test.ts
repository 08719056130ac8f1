// Goal 2 of issue 37: with a pack whose every text is a unique marker, every message of every
// request the engine sends (root turns, sub-calls, child runs, the final-answer request,
// compaction, a multi-turn session, the depth-0 call) is made only of pack texts and slot
// values, in both REPLs, against mock-llm over real HTTP. Each message is parsed by a grammar
// built from the pack's templates; anything the engine wrote itself would not parse.
import { afterAll, describe, expect, it } from 'vitest';
import type { ReplLanguage } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import type { PromptPack, SlotName } from '../../../src-main/lm/prompt-pack.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmServer, type RecordedRequest } from '../../../src-main/mock-llm/server.ts';
import { markerPack } from '../../support/marker-pack.ts';

const servers: MockLlmServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PLACEHOLDER = /\{([a-z][a-z_]*)(?:\|[^|{}]*\|[^|{}]*)?\}/g;
const NUMBER = /^[\d,]+$/;
const NUMBERS = new Set([
  'window_tokens',
  'max_chars',
  'good_chars',
  'batch_size',
  'batch_chars',
  'chunk',
  'chunk_plain',
  'total_chars',
  'count',
  'last',
  'turn',
  'max_iterations',
  'block',
  'cut',
]);
const noMarkers = (v: string): boolean => !/[«»]/.test(v);
/** A sub-call prompt the mock fails (HTTP 500), and a model no run here may use. */
const FAILING = 'fail please';
const UNKNOWN_MODEL = 'no-such-model';

interface Known {
  queries: Set<string>;
  contexts: Set<string>;
  toolNames: Set<string>;
  toolDescriptions: Set<string>;
}

/** Parses texts by the pack's templates; every variable's value is checked by what it may hold. */
class Grammar {
  private readonly pack: PromptPack;
  private readonly known: Known;
  constructor(pack: PromptPack, known: Known) {
    this.pack = pack;
    this.known = known;
  }

  /** The text is the concatenation of these slots' templates, every variable a valid value. */
  seq(text: string, slots: SlotName[]): boolean {
    const vars: [SlotName, string][] = [];
    let source = '';
    for (const slot of slots) {
      const t = this.pack.texts[slot];
      let last = 0;
      for (const m of t.matchAll(PLACEHOLDER)) {
        source += escape(t.slice(last, m.index));
        source += '([\\s\\S]*?)';
        vars.push([slot, m[1]!]);
        last = m.index + m[0].length;
      }
      source += escape(t.slice(last));
    }
    const m = new RegExp(`^${source}$`).exec(text);
    return m !== null && vars.every(([slot, name], i) => this.value(slot, name, m[i + 1]!));
  }

  is(text: string, ...alternatives: SlotName[]): boolean {
    return alternatives.some((s) => this.seq(text, [s]));
  }

  list(text: string, separator: string, item: (v: string) => boolean): boolean {
    return text.split(separator).every(item);
  }

  block(text: string): boolean {
    const t = this.pack.texts;
    const cut = text.lastIndexOf('«truncated»');
    if (cut >= 0) return this.is(text.slice(cut), 'truncated') && text.startsWith('«') && noMarkers(text.slice(text.indexOf('»') + 1, cut));
    if (text === t.noOutput) return true;
    return this.list(text, t.blockPartSeparator, (p) =>
      this.is(p, 'replReset', 'blockStdout', 'blockStderr', 'blockError', 'blockVariables'),
    );
  }

  value(slot: SlotName, name: string, v: string): boolean {
    const t = this.pack.texts;
    if (NUMBERS.has(name)) return NUMBER.test(v);
    switch (name) {
      case 'tools_section':
        return v === '' || this.is(v, 'toolsSection');
      case 'recursion':
        return this.is(v, 'systemRecursionOn', 'systemRecursionOff');
      case 'child_llm_model':
        return v === t.childLlmModelSub || v === t.childLlmModelOwn;
      case 'history':
        return v === '' || v === t.systemCompaction;
      case 'finish':
        return v === t.systemFinish || v === t.systemFinishFinalPatterns;
      case 'example':
        return this.is(v, 'systemExample');
      case 'tools':
        return this.list(v, t.toolSeparator, (l) => this.is(l, 'toolLine'));
      case 'description':
        return this.known.toolDescriptions.has(v) || v === t.toolFunction || this.is(v, 'toolValue');
      case 'name':
        return slot === 'toolLine' ? this.known.toolNames.has(v) : /^\w+$/.test(v);
      case 'type':
        return slot === 'toolValue' || slot === 'badPrompts' ? /^\w+$/.test(v) : [t.typeString, t.typeArray, t.typeObject].includes(v);
      case 'function':
        return v === 'llm_query_batched';
      case 'metadata':
        return this.is(v, 'metadata');
      case 'query':
        return this.known.queries.has(v);
      case 'chunks':
        return v === '' || this.is(v, 'metadataChunksArray', 'metadataChunksObject');
      case 'lengths': {
        const more = v.indexOf('«metadataChunksMore»');
        return /^[\d, ]*$/.test(more < 0 ? v : v.slice(0, more)) && (more < 0 || this.is(v.slice(more), 'metadataChunksMore'));
      }
      case 'output':
        return this.block(v);
      case 'names':
        return this.list(v, t.variableSeparator, (n) => this.is(n, 'variableName'));
      case 'text': {
        // Under reference semantics an error ends stderr, as the reference's REPL writes it.
        const err = v.indexOf('\n«blockError»');
        return err < 0 ? this.printed(v) : this.printed(v.slice(0, err)) && this.is(v.slice(err + 1), 'blockError');
      }
      case 'model':
        return v === UNKNOWN_MODEL;
      case 'variables':
      case 'models':
      case 'error':
      case 'message':
      case 'reason':
        return noMarkers(v);
      case 'context':
        return this.known.contexts.has(v);
      default:
        return false;
    }
  }

  /** What a block printed: the code's own text, or lines the REPL returned to it (SHOW_VARS(), a sub-call that failed or was refused). */
  printed(text: string): boolean {
    return (
      noMarkers(text) ||
      text
        .replace(/\n$/, '')
        .split('\n')
        .every((line) =>
          this.is(line, 'showVars', 'showVarsEmpty', 'emptyPrompt', 'unknownModel', 'subcallFailed', 'subcallFailedBatched', 'badPrompts'),
        )
    );
  }

  turnPrompt(text: string): boolean {
    for (const head of ['turnFirst', 'turn'] as const)
      for (const contexts of [[], ['contextsNote']] as SlotName[][])
        for (const histories of [[], ['historyNoteOne'], ['historyNoteMany']] as SlotName[][])
          if (this.seq(text, [head, ...contexts, ...histories])) return true;
    return false;
  }

  replOutput(text: string): boolean {
    return this.is(text, 'replOutput') || this.list(text, this.pack.texts.replOutputSeparator, (b) => this.is(b, 'replOutputBlock'));
  }
}

/** What each request kind is asked, and what it answers. */
function policy(language: ReplLanguage): { policy: Policy; replies: Set<string> } {
  const js = language === 'javascript';
  const fence = (code: string): string => `Let me work.\n\`\`\`repl\n${code}\n\`\`\``;
  const replies = {
    sub: 'a sub answer',
    final: 'my final words',
    summary: 'the summary so far',
    child: fence(js ? 'answer.content = "child done";\nanswer.ready = true;' : 'answer["content"] = "child done"\nanswer["ready"] = True'),
    first:
      fence(
        js
          ? 'const x = llm_query("first question");\nconst ys = llm_query_batched(["a", "b"]);\nconst c = rlm_query("child task");\nconst n = limit + lookup("k").length;\nprint(x, ys.length, c, n);'
          : 'x = llm_query("first question")\nys = llm_query_batched(["a", "b"])\nc = rlm_query("child task")\nn = limit + len(lookup("k"))\nprint(x, len(ys), c, n)',
      ) +
      `\n\`\`\`repl\n${js ? 'undefinedThing();' : 'undefined_thing()'}\n\`\`\`` +
      // What the REPL itself returns to the code, printed so that it reaches the model.
      `\n\`\`\`repl\n${[
        'print(SHOW_VARS())',
        'print(llm_query(""))',
        `print(llm_query("q", "${UNKNOWN_MODEL}"))`,
        `print(llm_query("${FAILING}"))`,
        `print(llm_query_batched(["${FAILING}"])[0])`,
        'print(llm_query_batched("not a list"))',
      ].join(js ? ';\n' : '\n')}\n\`\`\``,
    second: 'No code this turn.',
    third: fence(js ? 'print("y".repeat(3000));' : 'print("y" * 3000)'),
    submit: fence(js ? 'answer.content = "done";\nanswer.ready = true;' : 'answer["content"] = "done"\nanswer["ready"] = True'),
  };
  const p: Policy = (req) => {
    const c = classify(req);
    if (c.kind === 'sub') {
      if (req.messages.at(-1)?.content === FAILING) throw new Error('this sub-call fails');
      return replies.sub;
    }
    if (c.kind === 'final') return replies.final;
    if (c.kind === 'compaction') return replies.summary;
    if (c.query === null) return replies.child;
    if (c.query === 'Then?') return replies.submit;
    return c.turn === 1 ? replies.first : c.turn === 2 ? replies.second : replies.third;
  };
  return { policy: p, replies: new Set(Object.values(replies)) };
}

async function requestsOf(
  language: ReplLanguage,
): Promise<{ requests: RecordedRequest[]; grammar: Grammar; replies: Set<string>; pack: PromptPack }> {
  const pack = markerPack(language);
  const { policy: p, replies } = policy(language);
  const server = await startMockLlm({ policy: p, prompts: pack, recordRequests: true, recordTexts: true });
  servers.push(server);
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
  const tools = { lookup: { value: (k: unknown) => `found ${String(k)}`, description: 'finds a record' }, limit: { value: 3 } };
  const base = { client, model: 'mock-root', repl: language, prompts: pack, tools };
  const session = new RlmConversation(
    // A tiny window: every root turn is compacted first.
    { ...base, maxDepth: 2, maxIterations: 3, compaction: true, contextWindow: 120 },
    { sink: new EventRecorder(), persistent: true },
  );
  const direct = new RlmConversation({ ...base, maxDepth: 0 }, { sink: new EventRecorder() });
  try {
    const first = await session.completion('the first context', 'What?');
    expect(first.stopReason).toBe('max_iterations');
    const second = await session.completion('the second context', 'Then?');
    expect(second.stopReason).toBe('answered');
    await direct.completion('a direct context', 'Direct?');
    await direct.completion('a bare context', null);
  } finally {
    session.close();
    direct.close();
  }
  const grammar = new Grammar(pack, {
    queries: new Set(['What?', 'Then?', 'Direct?']),
    contexts: new Set(['a direct context', 'a bare context']),
    toolNames: new Set(['lookup', 'limit']),
    toolDescriptions: new Set(['finds a record']),
  });
  return { requests: server.requests(), grammar, replies, pack };
}

type Kind = 'root turn' | 'child turn' | 'sub-call' | 'final answer' | 'compaction' | 'multi-turn' | 'direct';

/** The kind of a request, and every message of it that is not made of pack texts and slot values. */
function explain(req: RecordedRequest, g: Grammar, replies: Set<string>, pack: PromptPack): { kind: Kind; unexplained: string[] } {
  const msgs = req.messages.map((m) => ({ role: m.role, content: m.content ?? '' }));
  const t = pack.texts;
  const unexplained: string[] = [];
  const subPrompts = new Set(['first question', 'a', 'b', FAILING]);
  let kind: Kind;
  if (msgs[0]?.role !== 'system') {
    const only = msgs[0]!.content;
    kind = subPrompts.has(only) ? 'sub-call' : 'direct';
    if (msgs.length !== 1 || !(subPrompts.has(only) || g.is(only, 'directCall', 'directCallQuery'))) unexplained.push(only);
    return { kind, unexplained };
  }
  const last = msgs.at(-1)!;
  const isChild = g.is(msgs[1]!.content, 'metadata');
  kind =
    last.content === t.finalAnswerRequest
      ? 'final answer'
      : last.content === t.compactionRequest
        ? 'compaction'
        : isChild
          ? 'child turn'
          : 'root turn';
  if (kind === 'root turn' && msgs.some((m) => m.role === 'user' && m.content.includes('«contextsNote»'))) kind = 'multi-turn';
  msgs.forEach((m, i) => {
    const ok =
      m.role === 'system'
        ? i === 0 && g.is(m.content, 'system')
        : m.role === 'assistant'
          ? replies.has(m.content) || (m.content === t.finalAnswerRequest && pack.roles.finalAnswerRequest === 'assistant')
          : i === 1
            ? g.is(m.content, 'metadata', 'metadataQuery')
            : g.turnPrompt(m.content) ||
              g.replOutput(m.content) ||
              g.is(m.content, 'compactionNote', 'compactionRequest') ||
              (m.content === t.finalAnswerRequest && pack.roles.finalAnswerRequest === 'user');
    if (!ok) unexplained.push(`${m.role}: ${m.content.slice(0, 300)}`);
  });
  return { kind, unexplained };
}

describe('every message of every request is made of pack texts and slot values', () => {
  for (const language of ['javascript', 'python'] as const) {
    it(`${language} REPL`, async () => {
      const { requests, grammar, replies, pack } = await requestsOf(language);
      const kinds = new Set<Kind>();
      const problems: string[] = [];
      for (const req of requests) {
        const { kind, unexplained } = explain(req, grammar, replies, pack);
        kinds.add(kind);
        problems.push(...unexplained.map((u) => `request ${req.n} (${kind}): ${u}`));
      }
      expect(problems).toEqual([]);
      expect([...kinds].sort()).toEqual(['child turn', 'compaction', 'direct', 'final answer', 'multi-turn', 'root turn', 'sub-call']);
      // The grammar is not vacuous: each of these slots' markers reached the model.
      const all = requests.flatMap((r) => r.messages.map((m) => m.content ?? '')).join('\n');
      for (const slot of [
        'system',
        'toolsSection',
        'toolLine',
        'toolValue',
        'systemCompaction',
        'metadataQuery',
        'metadata',
        'turnFirst',
        'turn',
        'contextsNote',
        'historyNoteOne',
        'replOutputBlock',
        'replOutput',
        'blockStdout',
        'blockVariables',
        'truncated',
        'finalAnswerRequest',
        'compactionRequest',
        'compactionNote',
        'directCall',
        'directCallQuery',
        'showVars',
        'emptyPrompt',
        'unknownModel',
        'subcallFailed',
        'subcallFailedBatched',
        'badPrompts',
      ] as const)
        expect([slot, all.includes(`«${slot}»`)]).toEqual([slot, true]);
      expect(all.includes(language === 'python' ? '«blockError»' : '«blockError»')).toBe(true);
    });
  }
});
