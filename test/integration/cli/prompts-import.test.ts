// `prompts import-reference`, `show`, `diff` and `--prompts` against a small fake `rlm`
// package this test writes (our own words, the same modules and functions as the reference
// library's), since the reference itself is not part of the test suite.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importReferencePack, ReferenceImportError } from '../../../src-main/cli/prompt-import/import-reference.ts';
import { OUR_PACKS } from '../../../src-main/lm/our-prompt-packs.ts';
import { parsePromptPack } from '../../../src-main/lm/prompt-pack-schema.ts';
import { runCli } from '../support/cli.ts';

const FILES: Record<string, string> = {
  'rlm/__init__.py': '',
  'rlm/utils/__init__.py': '',
  'rlm/core/__init__.py': '',
  'rlm/environments/__init__.py': '',
  'pyproject.toml': '[project]\nname = "rlms"\nversion = "9.8.7"\n',
  'rlm/environments/base_env.py': `
def format_tools_for_prompt(tools):
    if not tools:
        return None
    out = []
    for name, spec in tools.items():
        if isinstance(spec, dict) and "tool" in spec:
            out.append(f"* {name} -- {spec['description']}")
        elif callable(spec):
            out.append(f"* {name} -- a helper")
        else:
            out.append(f"* {name} -- some {type(spec).__name__} data")
    return "\\n".join(out)
`,
  'rlm/core/types.py': `
import json

class QueryMetadata:
    def __init__(self, prompt):
        if isinstance(prompt, str):
            self.context_type, self.context_lengths = "text", [len(prompt)]
        elif isinstance(prompt, dict):
            self.context_type = "mapping"
            self.context_lengths = [len(v) if isinstance(v, str) else len(json.dumps(v)) for v in prompt.values()]
        else:
            self.context_type = "sequence"
            self.context_lengths = [len(x) for x in prompt] or [0]
        self.context_total_length = sum(self.context_lengths)
`,
  'rlm/utils/prompts.py': `
from rlm.environments.base_env import format_tools_for_prompt

RLM_SYSTEM_PROMPT = """You work a problem with a notebook. Submit with {{"done": True}}.{custom_tools_section}
Keep going until done."""

EXTRA = "Remember: plan first."

def build_rlm_system_prompt(system_prompt, query_metadata, custom_tools=None, root_prompt=None, orchestrator=True):
    tools = format_tools_for_prompt(custom_tools)
    section = f"\\nTools you have:\\n{tools}" if tools else ""
    system = system_prompt.format(custom_tools_section=section)
    if orchestrator:
        system = system + "\\n---\\n" + EXTRA
    body = f"The data is {query_metadata.context_type} sized {query_metadata.context_total_length}."
    meta = f"Task >> {root_prompt}\\n{body}" if root_prompt else body
    return [{"role": "system", "content": system}, {"role": "user", "content": meta}]

def build_user_prompt(root_prompt=None, iteration=0, context_count=1, history_count=0, max_iterations=30):
    text = f"Step {iteration + 1} of {max_iterations}."
    if iteration == 0:
        text = "Look before you leap. " + text
    if context_count > 1:
        text += f" ({context_count} datasets: 0..{context_count - 1})"
    if history_count == 1:
        text += " (one earlier chat)"
    elif history_count > 1:
        text += f" ({history_count} earlier chats: 0..{history_count - 1})"
    return {"role": "user", "content": text}
`,
  'rlm/utils/parsing.py': `
def format_execution_result(result):
    parts = []
    if result.stdout:
        parts.append("out| " + result.stdout)
    if result.stderr:
        parts.append("err| " + result.stderr)
    names = [k for k in result.locals if not k.startswith("_")]
    if names:
        parts.append("vars: " + repr(names))
    return " ~ ".join(parts) if parts else "(nothing)"

def format_iteration(iteration, max_character_length=500):
    messages = [{"role": "assistant", "content": iteration.response}]
    parts = []
    many = len(iteration.code_blocks) > 1
    for i, block in enumerate(iteration.code_blocks):
        text = format_execution_result(block.result)
        if len(text) > max_character_length:
            text = text[:max_character_length] + f" <{len(text) - max_character_length} dropped>"
        parts.append((f"[cell {i + 1}] " if many else "[cell] ") + text)
    if parts:
        messages.append({"role": "user", "content": " || ".join(parts)})
    return messages
`,
  'rlm/core/rlm.py': `
from rlm.clients_stub import get_client
from rlm.core.types import QueryMetadata
from rlm.utils.prompts import build_rlm_system_prompt

class RLM:
    def _setup_prompt(self, prompt, root_prompt=None):
        messages = build_rlm_system_prompt(self.system_prompt, QueryMetadata(prompt), self.custom_tools, root_prompt, self.orchestrator)
        if self.compaction:
            messages[0]["content"] += " Old turns live in history."
        return messages

    def _compact_history(self, lm_handler, environment, message_history, compaction_count=1):
        summary = lm_handler.completion(message_history + [{"role": "user", "content": "Sum it up."}])
        environment.append_compaction_entry({"type": "summary", "content": summary})
        return message_history[:2] + [
            {"role": "assistant", "content": summary},
            {"role": "user", "content": f"Squeezed {compaction_count} times; carry on."},
        ]

    def _default_answer(self, message_history, lm_handler):
        return lm_handler.completion(message_history + [{"role": "user", "content": "Out of steps: answer now."}])

    def _fallback_answer(self, message):
        return get_client(self.backend, self.backend_kwargs).completion(message)
`,
  'rlm/environments/local_repl.py': `
from rlm.core.lm_handler import ask

class LocalREPL:
    def _show_vars(self):
        seen = {k: type(v).__name__ for k, v in self.locals.items() if not k.startswith("_")}
        return f"In scope: {seen}" if seen else "Nothing defined so far."

    def _llm_query(self, prompt, model=None):
        ok, text = ask(self.lm_handler_address, [prompt])[0]
        return text if ok else f"Oops: {text}"

    def _llm_query_batched(self, prompts, model=None):
        return [text if ok else f"Oops in a batch: {text}" for ok, text in ask(self.lm_handler_address, prompts)]
`,
  'rlm/core/lm_handler.py': `
_running = {}

class LMHandler:
    def __init__(self, client):
        self.client = client

    def start(self):
        self.address = ("in-process", len(_running))
        _running[self.address] = self
        return self.address

    def stop(self):
        _running.pop(self.address, None)

def ask(address, prompts):
    client = _running[address].client
    replies = []
    for p in prompts:
        if not p:
            replies.append((False, "no prompt given"))
            continue
        try:
            replies.append((True, client.completion(p)))
        except Exception as e:
            replies.append((False, str(e)))
    return replies
`,
  'rlm/clients_stub.py': `
def get_client(backend, kwargs):
    raise RuntimeError("no client in this fixture")
`,
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function fakeLibrary(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-rlm-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('prompts import-reference', () => {
  it('learns every text of the library as a template, checked against what its builders build', async () => {
    const { pack, checked } = await importReferencePack({ from: fakeLibrary() });
    expect(checked).toBe(13);
    expect(pack).toMatchObject({
      name: 'reference-rlm-9.8.7',
      language: 'python',
      semantics: 'reference',
      numbers: 'plain',
      outputCap: 500,
    });
    expect(pack.roles.finalAnswerRequest).toBe('user');
    const t = pack.texts;
    expect(t.system).toBe(
      'You work a problem with a notebook. Submit with {"done": True}.{tools_section}\nKeep going until done.\n---\nRemember: plan first.{history}',
    );
    expect(t.toolsSection).toBe('\nTools you have:\n{tools}');
    expect([t.toolLine, t.toolFunction, t.toolValue]).toEqual(['* {name} -- {description}', 'a helper', 'some {type} data']);
    expect(t.customSystemSuffix).toBe('\n---\nRemember: plan first.');
    expect(t.systemCompaction).toBe(' Old turns live in history.');
    expect([t.metadata, t.metadataQuery]).toEqual(['The data is {type} sized {total_chars}.', 'Task >> {query}\n{metadata}']);
    expect([t.typeString, t.typeArray, t.typeObject]).toEqual(['text', 'sequence', 'mapping']);
    expect([t.turnFirst, t.turn]).toEqual(['Look before you leap. Step {turn} of {max_iterations}.', 'Step {turn} of {max_iterations}.']);
    expect([t.contextsNote, t.historyNoteOne, t.historyNoteMany]).toEqual([
      ' ({count} datasets: 0..{last})',
      ' (one earlier chat)',
      ' ({count} earlier chats: 0..{last})',
    ]);
    expect([t.replOutput, t.replOutputBlock, t.replOutputSeparator]).toEqual(['[cell] {output}', '[cell {block}] {output}', ' || ']);
    expect([t.blockStdout, t.blockStderr, t.blockPartSeparator, t.noOutput]).toEqual(['out| {text}', 'err| {text}', ' ~ ', '(nothing)']);
    expect([t.blockVariables, t.variableName, t.variableSeparator]).toEqual(['vars: [{names}]', "'{name}'", ', ']);
    expect(t.truncated).toBe(' <{cut} dropped>');
    expect([t.finalAnswerRequest, t.compactionRequest, t.compactionNote]).toEqual([
      'Out of steps: answer now.',
      'Sum it up.',
      'Squeezed {count} times; carry on.',
    ]);
    expect([t.directCall, t.directCallQuery]).toEqual(['{context}', '{context}']);
    // What the library's REPL returns to the code: SHOW_VARS(), a call without a prompt, a failed call.
    expect([t.showVars, t.showVarsEmpty]).toEqual(['In scope: {variables}', 'Nothing defined so far.']);
    expect([t.emptyPrompt, t.subcallFailed, t.subcallFailedBatched]).toEqual([
      'Oops: no prompt given',
      'Oops: {error}',
      'Oops in a batch: {error}',
    ]);
    // The library has no text for these: ours, and the description says so.
    for (const slot of ['unknownModel', 'subcallStopped', 'childFailed', 'childStopped', 'childBudgetExhausted'] as const)
      expect([slot, t[slot]]).toEqual([slot, OUR_PACKS.python.texts[slot]]);
    expect(pack.description).toMatch(
      /unknownModel, subcallStopped, childFailed, childStopped, childStoppedPartial, childBudgetExhausted, childTimeExhausted/,
    );
    expect(pack.description).not.toMatch(/showVars|emptyPrompt|subcallFailed/);
  });

  it("keeps our FINAL_VAR texts for a library without FINAL_VAR; reads the library's where its REPL has one", async () => {
    const { pack } = await importReferencePack({ from: fakeLibrary() });
    expect([pack.texts.finalVarNotFound, pack.texts.finalVarNoVariables]).toEqual([
      OUR_PACKS.python.texts.finalVarNotFound,
      OUR_PACKS.python.texts.finalVarNoVariables,
    ]);
    expect(pack.description).toMatch(/finalVarNotFound, finalVarNoVariables: RLM Studio's/);
    const dir = fakeLibrary();
    writeFileSync(
      join(dir, 'rlm/environments/local_repl.py'),
      `
class LocalREPL:
    def _final_var(self, variable_name):
        name = variable_name.strip().strip("\\"'")
        if name in self.locals:
            return str(self.locals[name])
        names = [k for k in self.locals if not k.startswith("_")]
        if names:
            return f"No {name} here; try one of {names}."
        return f"No {name} here, nor anything else."
`,
    );
    const paper = await importReferencePack({ from: dir });
    expect(paper.checked).toBe(11);
    // This REPL has no SHOW_VARS nor sub-calls of its own: ours.
    expect([paper.pack.texts.showVars, paper.pack.texts.emptyPrompt, paper.pack.texts.subcallFailed]).toEqual([
      OUR_PACKS.python.texts.showVars,
      OUR_PACKS.python.texts.emptyPrompt,
      OUR_PACKS.python.texts.subcallFailed,
    ]);
    expect(paper.pack.description).toMatch(/showVars, showVarsEmpty, emptyPrompt, subcallFailed, subcallFailedBatched: RLM Studio's/);
    expect([paper.pack.texts.finalVarNotFound, paper.pack.texts.finalVarNoVariables]).toEqual([
      'No {name} here; try one of {available}.',
      'No {name} here, nor anything else.',
    ]);
    expect(paper.pack.description).not.toMatch(/finalVarNotFound/);
  });

  it('writes the pack from the command line, and show, diff and --prompts read it', async () => {
    const dir = fakeLibrary();
    const out = join(dir, 'pack.json');
    const res = await runCli(['prompts', 'import-reference', '-o', out, '--from', dir]);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/wrote .*pack\.json: reference-rlm-9\.8\.7 \(hash [0-9a-f]{16}\).*13 samples rebuilt exactly/);
    const pack = parsePromptPack(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(pack.texts.turn).toBe('Step {turn} of {max_iterations}.');
    const again = await runCli(['prompts', 'import-reference', '-o', out, '--from', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    const slot = await runCli(['prompts', 'show', out, '--slot', 'turnFirst']);
    expect(slot.stdout).toBe('Look before you leap. Step {turn} of {max_iterations}.');
    const diff = await runCli(['prompts', 'diff', 'rlm-studio-python', out]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(/^semantics: "rlm-studio" → "reference"$/m);
    expect(diff.stdout).toMatch(/^turn: differs at character 0: /m);
    const js = await runCli([
      'run',
      '--context',
      out,
      '--query',
      'q',
      '--base-url',
      'http://127.0.0.1:4999/v1',
      '--model',
      'm',
      '--prompts',
      out,
    ]);
    expect(js.code).toBe(2);
    expect(js.stderr).toMatch(/the prompt pack "reference-rlm-9\.8\.7" is written for a python REPL, and this run's REPL is javascript/);
  });

  it('says what is wrong: no library, no Python, a library whose builders it cannot read', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-rlm-'));
    dirs.push(empty);
    await expect(importReferencePack({ from: empty, env: { ...process.env, PYTHONPATH: '' } })).rejects.toThrow(
      /python3 cannot import the reference library: ModuleNotFoundError: No module named 'rlm'/,
    );
    await expect(importReferencePack({ python: '/nonexistent/python9' })).rejects.toThrow(/\/nonexistent\/python9 was not found/);
    const odd = fakeLibrary();
    // Later turns that name the turn twice cannot be one template of the first turn's shape.
    writeFileSync(
      join(odd, 'rlm/utils/prompts.py'),
      FILES['rlm/utils/prompts.py']!.replace(
        'text = f"Step {iteration + 1} of {max_iterations}."',
        'text = f"Step {iteration + 1}/{iteration + 1} of {max_iterations}."',
      ),
    );
    await expect(importReferencePack({ from: odd })).rejects.toThrow(ReferenceImportError);
    const bad = await runCli(['prompts', 'import-reference', '-o', join(odd, 'x.json'), '--from', join(odd, 'missing')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from .*missing is not a folder/);
  });
});
