// The built-in scenarios policy: keyword choice, determinism, the kind of code each first
// turn writes, and whole runs through a stand-in engine that executes that code.
import { describe, expect, it } from 'vitest';
import { buildMetadataMessage, buildSystemPrompt, buildTurnPrompt } from '../../../src-main/engine/prompts.ts';
import { COMPACTION_REQUEST, MARKERS } from '../../../src-main/lm/prompt-markers.ts';
import { classify } from '../../../src-main/mock-llm/policy.ts';
import type { MockMessage } from '../../../src-main/mock-llm/policy.ts';
import { askedLabel, scenarioFor, scenariosPolicy } from '../../../src-main/mock-llm/policies/scenarios.ts';
import { contextMeta, miniRun, replBlocks } from './mini-rlm.ts';

function firstTurn(context: unknown, query: string | null): MockMessage[] {
  return [
    { role: 'system', content: buildSystemPrompt({ tools: [], recursion: true, compaction: false, finalPatterns: false }) },
    { role: 'user', content: buildMetadataMessage(contextMeta(context), query) },
    { role: 'user', content: buildTurnPrompt({ turn: 1, maxIterations: 10, contextCount: 1, historyCount: 0 }) },
  ];
}

function haystack(chars: number, needle: string | null): string {
  const filler = 'The quick brown fox jumps over the lazy dog while the archivist counts ledgers. ';
  let text = filler.repeat(Math.ceil(chars / filler.length)).slice(0, chars);
  if (needle !== null) {
    const at = Math.floor(chars * 0.61);
    text = `${text.slice(0, at)} Remember this: the magic number is ${needle}. ${text.slice(at)}`;
  }
  return text;
}

function labelled(n: number): string[] {
  const labels = ['ham', 'spam', 'eggs'];
  return Array.from({ length: n }, (_, i) => `message ${i}: some words about item ${i * 7} || label: ${labels[(i * i + 3 * i) % 3]}`);
}

const LOG = [
  '=== SECTION auth ===',
  'INFO login ok',
  'ERROR bad password',
  'ERROR locked out',
  '=== SECTION billing ===',
  'INFO invoice sent',
  'ERROR card declined',
  'ERROR card declined',
  'ERROR gateway timeout',
  'WARN retrying',
  '=== SECTION search ===',
  'INFO query served',
  'INFO query served',
].join('\n');

describe('scenario choice', () => {
  it('follows the documented keywords, first match wins', () => {
    expect(scenarioFor('Which variables does the REPL hold?')).toBe('variables');
    expect(scenarioFor('What is the magic number?')).toBe('needle');
    expect(scenarioFor('How many items are labelled spam?')).toBe('aggregate');
    expect(scenarioFor('Count the spam')).toBe('aggregate');
    expect(scenarioFor('Summarise it per section')).toBe('recursive');
    expect(scenarioFor('Do a recursive pass: how many ERROR lines?')).toBe('recursive');
    expect(scenarioFor('Read it and recover from mistakes')).toBe('recover');
    expect(scenarioFor('You will never finish: what is the magic number?')).toBe('never');
    expect(scenarioFor('Tell me about this document')).toBe('default');
    expect(scenarioFor(null)).toBe('child');
  });

  it('finds the label the query asks about', () => {
    expect(askedLabel('How many messages are labelled spam?', ['eggs', 'ham', 'spam'])).toBe('spam');
    expect(askedLabel('how many are HAM', ['ham', 'spam'])).toBe('ham');
    expect(askedLabel('How many messages are there?', ['ham', 'spam'])).toBeNull();
  });
});

describe('request classification', () => {
  it('reads query, turn and kind from the engine prompts', () => {
    const c = classify({ model: 'm', messages: firstTurn('abc', 'What is the magic number?') });
    expect(c).toMatchObject({ kind: 'rlm', query: 'What is the magic number?', turn: 1, maxTurns: 10 });
    const child = classify({ model: 'm', messages: firstTurn('abc', null) });
    expect(child.query).toBeNull();
    expect(classify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).kind).toBe('sub');
    const compaction = [...firstTurn('abc', 'q'), { role: 'user', content: COMPACTION_REQUEST }];
    expect(classify({ model: 'm', messages: compaction }).kind).toBe('compaction');
  });
});

describe('first turns', () => {
  const queries = [
    'What is the magic number?',
    'How many messages are labelled spam?',
    'Per section: which has the most ERROR lines?',
    'Inspect this and recover from errors',
    'never finish',
    'Describe this document',
    null,
  ];

  it('are deterministic', () => {
    for (const q of queries) {
      const a = scenariosPolicy({ model: 'm', messages: firstTurn('some context', q) });
      const b = scenariosPolicy({ model: 'm', messages: firstTurn('some context', q) });
      expect(a).toBe(b);
    }
  });

  it('reason in a sentence, then inspect the context in one repl block without printing all of it', () => {
    for (const q of queries) {
      const reply = scenariosPolicy({ model: 'm', messages: firstTurn('some context', q) });
      expect(reply).toMatch(/^[A-Z][^\n]+\.\n\n```repl\n/);
      const blocks = replBlocks(reply);
      expect(blocks).toHaveLength(1);
      expect(blocks[0]).toMatch(/print\(/);
      expect(blocks[0]).not.toMatch(/print\(context\)/);
      expect(blocks[0]).not.toMatch(/answer\.ready/);
    }
  });
});

describe('whole scenarios through a stand-in engine', () => {
  it('needle: inspects, searches with a regex and a verifying llm_query, then submits the number (5 MB)', async () => {
    const run = await miniRun({ policy: scenariosPolicy, context: haystack(5_000_000, '4,827,193'), query: 'What is the magic number?' });
    expect(run.answer).toBe('4827193');
    expect(run.forced).toBe(false);
    expect(run.replies).toHaveLength(3);
    expect(replBlocks(run.replies[1]!)[0]).toMatch(/matchAll\(\/magic number/);
    expect(run.subPrompts).toHaveLength(1);
    expect(run.subPrompts[0]).toMatch(/^TASK: find-number\n/);
    expect(run.outputs.join('\n').length).toBeLessThan(5_000);
    expect(run.replies[2]).toContain('answer.content = "4827193"');
  });

  it('needle: says so when there is no magic number', async () => {
    const run = await miniRun({ policy: scenariosPolicy, context: haystack(900_000, null), query: 'What is the magic number?' });
    expect(run.answer).toBe('I could not find a magic number in the context.');
    expect(run.subPrompts.length).toBe(3); // the chunked fallback scan
  });

  it('aggregate: counts labels in batched chunks and submits the exact total', async () => {
    const items = labelled(1000);
    const expected = items.filter((s) => s.endsWith('label: spam')).length;
    for (const context of [items, JSON.stringify(items), items.join('\n')]) {
      const run = await miniRun({ policy: scenariosPolicy, context, query: 'How many messages are labelled spam?' });
      expect(run.answer).toBe(String(expected));
      expect(run.subPrompts.length).toBeGreaterThanOrEqual(8);
      expect(run.subPrompts.every((p) => p.startsWith('TASK: count-labels\n'))).toBe(true);
      expect(replBlocks(run.replies[1]!)[0]).toContain('llm_query_batched(prompts)');
    }
  });

  it('recursive: child RLMs per section (depth 2), and the same answer from leaf calls at max depth', async () => {
    const query = 'Per section: which section has the most ERROR lines, and how many?';
    const deep = await miniRun({ policy: scenariosPolicy, context: LOG, query, maxDepth: 2 });
    expect(deep.answer).toMatch(/^Section "SECTION billing" has the most ERROR lines: 3 \(of 5 in all\)/);
    expect(deep.childRuns).toHaveLength(3);
    for (const child of deep.childRuns) {
      expect(child.forced).toBe(false);
      expect(child.subPrompts).toHaveLength(1); // its own llm_query
      expect(child.messages[1]!.content).not.toContain(MARKERS.query);
    }
    expect(replBlocks(deep.replies[1]!)[0]).toContain('rlm_query_batched(childPrompts)');
    const flat = await miniRun({ policy: scenariosPolicy, context: LOG, query, maxDepth: 1 });
    expect(flat.childRuns).toHaveLength(0);
    expect(flat.answer).toBe(deep.answer);
  });

  it('recover: turn 2 throws, turn 3 reads the error, fixes it and submits', async () => {
    const run = await miniRun({
      policy: scenariosPolicy,
      context: 'alpha line\nbeta line\n',
      query: 'Inspect this and recover from errors',
    });
    expect(run.outputs[1]).toMatch(/TypeError: Cannot read properties of undefined/);
    expect(run.replies[2]).toContain('TypeError');
    expect(run.answer).toContain('first line "alpha line"');
    expect(run.forced).toBe(false);
  });

  it('never: keeps exploring, then answers the final-answer request in plain text', async () => {
    const run = await miniRun({ policy: scenariosPolicy, context: haystack(10_000, null), query: 'never finish', maxIterations: 4 });
    expect(run.forced).toBe(true);
    expect(run.replies).toHaveLength(4);
    expect(new Set(run.replies).size).toBe(4);
    expect(run.answer).not.toContain('```');
    expect(run.answer).toMatch(/best guess/);
  });

  it('default: summarises chunks in one batch and submits a combined summary', async () => {
    const run = await miniRun({ policy: scenariosPolicy, context: haystack(200_000, null), query: 'Describe this document' });
    expect(run.forced).toBe(false);
    expect(run.subPrompts).toHaveLength(8);
    expect(run.answer).toMatch(/^The context \(200000 characters, read in 8 parts\): Part 1 of 8 has/);
  });

  it('is deterministic over whole runs', async () => {
    const a = await miniRun({ policy: scenariosPolicy, context: LOG, query: 'recursive count of ERROR lines' });
    const b = await miniRun({ policy: scenariosPolicy, context: LOG, query: 'recursive count of ERROR lines' });
    expect(a.replies).toEqual(b.replies);
    expect(a.answer).toBe(b.answer);
  });
});

describe('compaction', () => {
  it('summarises with the query and every printed result, and the run carries on from it', async () => {
    const query = 'What is the magic number?';
    const partial = await miniRun({ policy: scenariosPolicy, context: haystack(50_000, '77'), query, maxIterations: 2 });
    const history = partial.messages.slice(0, -1); // drop the final-answer request
    const summary = scenariosPolicy({ model: 'm', messages: [...history, { role: 'user', content: COMPACTION_REQUEST }] });
    expect(summary).toContain(`Query: ${query}`);
    expect(summary).toContain('[needle:candidate] 77');
    expect(summary).not.toContain('```');
    // A compacted history: system prompt, the summary, the next turn prompt.
    const next = scenariosPolicy({
      model: 'm',
      messages: [
        history[0]!,
        { role: 'assistant', content: summary },
        { role: 'user', content: buildTurnPrompt({ turn: 3, maxIterations: 10, contextCount: 1, historyCount: 0 }) },
      ],
    });
    expect(next).toContain('answer.content = "77"');
  });
});
