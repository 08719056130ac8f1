// Request-for-request parity with the reference library (issue 37's first goal). The reference
// Python library (alexzhang13/rlm, from the local mirror: reference-lib.ts) and our command line
// run the same scenarios against one recording mock-llm serving the same scripted replies; ours
// with the pack `prompts import-reference` reads from that same copy and `--repl python`. For
// each scenario it prints the requests compared, how many are byte-identical (model, every
// message's role and text, every other body field) and the first difference. Sub-calls of one
// batch may arrive in any order on either side, so requests are matched as a multiset; the
// turns' order is checked by the first difference. Depth-2 children run one at a time (the
// reference loses output when they overlap). Figures are reported, never asserted.
// Run: node --no-node-snapshot bench/prompt-parity.ts [--keep]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { importReferencePack, firstDifference } from '../src-main/cli/prompt-import/import-reference.ts';
import { ensureCliBuilt } from '../src-main/cli/cli-build.ts';
import { classify, type Classified, type Policy } from '../src-main/mock-llm/policy.ts';
import { startMockLlm, type RecordedRequest } from '../src-main/mock-llm/server.ts';
import { log, root } from './lib.ts';
import { prepareReference } from './reference-lib.ts';

const MODEL = 'gpt-4';

const fence = (code: string): string => `Let me run this.\n\`\`\`repl\n${code}\n\`\`\``;
const submit = (what: string): string => fence(`answer["content"] = ${what}\nanswer["ready"] = True`);

interface Scenario {
  name: string;
  /** One context per completion (two for a multi-turn session), with its query. */
  turns: { context: string; query: string }[];
  maxDepth?: number;
  maxIterations?: number;
  compaction?: boolean;
  reply: (c: Classified) => string;
}

const needle = `${'filler text about nothing in particular. '.repeat(400)}The secret code is 4827193. ${'more filler words here. '.repeat(300)}`;

const SCENARIOS: Scenario[] = [
  {
    name: 'needle',
    turns: [{ context: needle, query: 'What is the secret code?' }],
    reply: (c) =>
      c.turn === 1
        ? fence(
            'import re\nm = re.search(r"secret code is (\\d+)", context)\nprint(type(context).__name__, len(context))\nprint(m.group(1))',
          )
        : submit('m.group(1)'),
  },
  {
    name: 'batched sub-calls',
    turns: [{ context: needle, query: 'Summarise the context.' }],
    reply: (c) => {
      if (c.kind === 'sub') return `summary of ${c.lastUser.length} characters`;
      return c.turn === 1
        ? fence(
            'chunks = [context[i:i + 4000] for i in range(0, len(context), 4000)]\nreplies = llm_query_batched(["Summarise: " + ch for ch in chunks])\nprint(len(replies), replies[:2])',
          )
        : submit('" / ".join(replies)');
    },
  },
  {
    name: 'depth-2 recursion',
    turns: [{ context: 'alpha beta gamma delta', query: 'Ask two children.' }],
    maxDepth: 2,
    reply: (c) => {
      if (c.kind === 'sub') return `leaf: ${c.lastUser}`;
      if (c.query === null) return c.turn === 1 ? fence('print(len(context), context[:20])') : submit('context.upper()');
      return c.turn === 1
        ? fence('a = rlm_query("first part: alpha beta")\nb = rlm_query("second part: gamma delta")\nprint(a)\nprint(b)')
        : submit('a + " | " + b');
    },
  },
  {
    name: 'code errors',
    turns: [{ context: 'some text', query: 'Do it.' }],
    reply: (c) =>
      c.turn === 1
        ? fence('x = 1\nprint("before")\nundefined_name + 1')
        : c.turn === 2
          ? fence('print(x)\nraise ValueError("bad value")')
          : submit('"recovered"'),
  },
  {
    name: 'iteration limit',
    turns: [{ context: 'a short context', query: 'Never finish.' }],
    maxIterations: 2,
    reply: (c) => (c.kind === 'final' ? 'my best answer' : fence(`print("turn", ${c.turn ?? 0})`)),
  },
  {
    name: '2-turn session',
    turns: [
      { context: 'the first context', query: 'First question?' },
      { context: 'the second context', query: 'Second question?' },
    ],
    reply: (c) =>
      c.turn === 1 ? fence('print(context)\nnote = "kept"') : submit(c.query === 'Second question?' ? 'note + " again"' : 'note'),
  },
  {
    name: 'compaction',
    turns: [{ context: needle, query: 'Read it all.' }],
    compaction: true,
    maxIterations: 6,
    reply: (c) => {
      if (c.kind === 'compaction') return 'Summary: I printed the context twice; next I submit.';
      return c.turn !== null && c.turn < 4 ? fence('print(context[:15000])') : submit('"done"');
    },
  },
  {
    // v0.1.3 has no FINAL_VAR (paper-era, before the answer dict): calling it is a NameError on
    // both sides, which loses the block's assignments; our --final-patterns is off here.
    name: 'FINAL_VAR in the same block',
    turns: [{ context: 'a short context', query: 'Answer with a variable.' }],
    reply: (c) => (c.turn === 1 ? fence('x = "from-block"\nprint(FINAL_VAR("x"))') : submit('"after the error"')),
  },
  {
    // What the REPL itself returns to the code, printed so that it reaches the model: SHOW_VARS()
    // (as a block starts, and with a variable an earlier block made) and a sub-call without a
    // prompt. A sub-call naming an unknown model is left out: the reference makes that call with
    // its default client, we refuse it (docs/differences.md).
    name: 'REPL texts',
    turns: [{ context: 'a short context', query: 'Show the variables.' }],
    reply: (c) =>
      c.turn === 1
        ? fence('x = 1\nprint(SHOW_VARS())\nprint(llm_query(""))\nprint(llm_query(None))')
        : c.turn === 2
          ? fence('print(SHOW_VARS())')
          : submit('"shown"'),
  },
];

// One scenario in the reference library: each completion in turn (persistent when several).
const DRIVER = `import json, sys
from rlm import RLM

spec = json.load(open(sys.argv[1], encoding="utf-8"))
rlm = RLM(backend="openai", backend_kwargs={"model_name": spec["model"], "base_url": spec["url"], "api_key": "bench"},
          environment="local", max_depth=spec["maxDepth"], max_iterations=spec["maxIterations"],
          compaction=spec["compaction"], persistent=len(spec["turns"]) > 1, max_concurrent_subcalls=1)
for t in spec["turns"]:
    res = rlm.completion(t["context"], root_prompt=t["query"])
    print(json.dumps({"answer": res.response}))
`;

/** Runs a command to its end without blocking this process (whose mock answers it). */
function run(file: string, args: string[], input?: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.resume();
    child.stdin.end(input ?? '');
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${file} ${args[0] ?? ''} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

interface Figures {
  compared: number;
  /** Same model and messages (every role and text). */
  identical: number;
  first: string | null;
  /** Requests whose other body fields differ from the reference's, and how (reported apart). */
  bodyDiffers: number;
  body: string | null;
}

const key = (r: RecordedRequest): string => JSON.stringify({ model: r.model, messages: r.messages });

function compare(ours: RecordedRequest[], theirs: RecordedRequest[]): Figures {
  const pool = new Map<string, number>();
  for (const r of theirs) pool.set(key(r), (pool.get(key(r)) ?? 0) + 1);
  let identical = 0;
  let first: string | null = null;
  ours.forEach((r, i) => {
    const k = key(r);
    const left = pool.get(k) ?? 0;
    if (left > 0) {
      pool.set(k, left - 1);
      identical++;
    } else if (first === null) {
      first = `request ${i + 1}: ${describeDifference(r, theirs[i])}`;
    }
  });
  if (first === null && ours.length !== theirs.length) first = `ours sent ${ours.length} requests, the reference ${theirs.length}`;
  const bodies = ours.filter((r, i) => JSON.stringify(r.params) !== JSON.stringify(theirs[i]?.params ?? {}));
  const body = bodies[0]
    ? `${JSON.stringify(bodies[0].params)} against ${JSON.stringify(theirs[ours.indexOf(bodies[0])]?.params ?? {})}`
    : null;
  return { compared: Math.max(ours.length, theirs.length), identical, first, bodyDiffers: bodies.length, body };
}

function describeDifference(a: RecordedRequest, b: RecordedRequest | undefined): string {
  if (b === undefined) return 'the reference sent no such request';
  if (a.model !== b.model) return `model ${a.model} against ${b.model}`;
  if (a.messages.length !== b.messages.length) return `${a.messages.length} messages against ${b.messages.length}`;
  for (let i = 0; i < a.messages.length; i++) {
    const x = a.messages[i]!;
    const y = b.messages[i]!;
    if (x.role !== y.role) return `message ${i + 1}: role ${x.role} against ${y.role}`;
    if (x.content !== y.content) return `message ${i + 1} (${x.role}) ${firstDifference(x.content ?? '', y.content ?? '')}`;
  }
  return 'the same';
}

/** Both sides' requests of one scenario, as JSON files to read side by side (PARITY_DUMP=name, with --keep). */
function dump(work: string, ours: RecordedRequest[], theirs: RecordedRequest[]): void {
  writeFileSync(join(work, 'ours.json'), JSON.stringify(ours, null, 1));
  writeFileSync(join(work, 'theirs.json'), JSON.stringify(theirs, null, 1));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { keep: { type: 'boolean' } } });
  const work = mkdtempSync(join(tmpdir(), 'rlm-parity-'));
  try {
    const ref = prepareReference(work);
    if ('unavailable' in ref) {
      log(`skipped: ${ref.unavailable}`);
      return;
    }
    const env = ref.command('http://127.0.0.1:1', '', '').env;
    const { pack, checked } = await importReferencePack({ env });
    const packFile = join(work, 'reference-pack.json');
    writeFileSync(packFile, JSON.stringify(pack, null, 2));
    log(`reference: ${ref.source}, Python ${ref.python}; pack ${pack.name} (${checked} samples rebuilt exactly)`);
    await ensureCliBuilt();

    let current: Scenario = SCENARIOS[0]!;
    const policy: Policy = (req) => current.reply(classify(req));
    const server = await startMockLlm({ policy, prompts: pack, recordRequests: true, recordTexts: true });
    const totals: Figures = { compared: 0, identical: 0, first: null, bodyDiffers: 0, body: null };
    const rows: string[] = [];
    try {
      for (const s of SCENARIOS) {
        current = s;
        const maxDepth = s.maxDepth ?? 1;
        const maxIterations = s.maxIterations ?? 30;
        const files = s.turns.map((t, i) => {
          const f = join(work, `${s.name.replace(/\W+/g, '-')}-${i}.txt`);
          writeFileSync(f, t.context);
          return f;
        });
        const before = server.requests().length;
        const common = ['--base-url', server.url, '--model', MODEL, '--prompts', packFile, '--repl', 'python'];
        const limits = ['--max-depth', String(maxDepth), '--max-iterations', String(maxIterations), '--max-concurrency-rlm', '1'];
        const extra = s.compaction ? ['--compaction'] : [];
        // Asynchronously: the mock answering both sides runs in this process.
        if (s.turns.length === 1) {
          await run(join(root, 'bin/rlm-studio'), [
            'run',
            '--context',
            files[0]!,
            '--query',
            s.turns[0]!.query,
            ...common,
            ...limits,
            ...extra,
            '--json',
          ]);
        } else {
          const input = s.turns.map((t, i) => `:context ${files[i]}\n${t.query}\n`).join('');
          await run(join(root, 'bin/rlm-studio'), ['chat', ...common, ...limits, ...extra, '--json'], input);
        }
        const mid = server.requests().length;
        const spec = join(work, 'spec.json');
        writeFileSync(
          spec,
          JSON.stringify({ url: server.url, model: MODEL, turns: s.turns, maxDepth, maxIterations, compaction: s.compaction ?? false }),
        );
        const driver = join(work, 'parity-driver.py');
        writeFileSync(driver, DRIVER);
        await run('python3', [driver, spec], undefined, ref.command(server.url, '', '').env);
        const all = server.requests();
        const f = compare(all.slice(before, mid), all.slice(mid));
        totals.compared += f.compared;
        totals.identical += f.identical;
        totals.bodyDiffers += f.bodyDiffers;
        totals.body ??= f.body;
        rows.push(`| ${s.name} | ${f.compared} | ${f.identical} | ${f.first ?? '—'} |`);
        log(`${s.name}: ${f.identical}/${f.compared} identical${f.first ? `; first difference: ${f.first}` : ''}`);
        if (s.name === process.env.PARITY_DUMP) dump(work, all.slice(before, mid), all.slice(mid));
      }
    } finally {
      await server.close();
    }
    process.stdout.write(
      `| scenario | requests compared | identical (model and messages) | first difference |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n| all | ${totals.compared} | ${totals.identical} | |\n\nOther body fields differ in ${totals.bodyDiffers} of our requests${totals.body ? `: ${totals.body}` : ''}.\n`,
    );
  } finally {
    if (values.keep) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
