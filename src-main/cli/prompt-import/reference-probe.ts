// The Python that `prompts import-reference` runs in the user's reference library (our code,
// not the library's): it calls the library's prompt builders with marker values, turns each
// text into a template with our placeholders, and prints them as JSON with samples built from
// real values, which the importer checks the pack against. The first argument, when not empty,
// goes first on the import path.
export const REFERENCE_PROBE_PY = `# RLM Studio's reader of a reference-library checkout (our code, not the library's): calls its
# prompt builders with marker values and prints, as JSON, each text as a template with our
# placeholders, plus samples built with real values that the importer checks its pack against.
import importlib, inspect, json, sys
from types import SimpleNamespace as NS

if len(sys.argv) > 1 and sys.argv[1]:
    sys.path.insert(0, sys.argv[1])


def M(name):
    return "\\u27e6" + name + "\\u27e7"


class ProbeError(Exception):
    pass


def once(text, part, what):
    if text.count(part) != 1:
        raise ProbeError(f"{what}: expected {part!r} once in {text[:200]!r}")
    return text


def template(text, marks, what):
    for mark, name in marks:
        once(text, mark, what)
        text = text.replace(mark, "{" + name + "}")
    return text


P = importlib.import_module("rlm.utils.prompts")
PA = importlib.import_module("rlm.utils.parsing")
T = importlib.import_module("rlm.core.types")
R = importlib.import_module("rlm.core.rlm")
BE = importlib.import_module("rlm.environments.base_env")
rlm = importlib.import_module("rlm")


def meta(ctype, total):
    return NS(context_type=ctype, context_total_length=total, context_lengths=[])


def tool_fn():
    return None


texts = {}

# System prompt: the default template with its tools placeholder, then what the builder appends.
section_probe = "\\u27e6A\\u27e7{custom_tools_section}\\u27e6B\\u27e7"
one_tool = {M("tool"): {"tool": tool_fn, "description": M("desc")}}
two_tools = {M("t1"): {"tool": tool_fn, "description": M("d1")}, M("t2"): {"tool": tool_fn, "description": M("d2")}}


def system(template_text, tools=None, orchestrator=True):
    return P.build_rlm_system_prompt(template_text, meta("str", 1), custom_tools=tools, orchestrator=orchestrator)[0]["content"]


line = BE.format_tools_for_prompt(one_tool)
texts["toolLine"] = template(line, [(M("tool"), "name"), (M("desc"), "description")], "tool line")
lines = BE.format_tools_for_prompt(two_tools)
first = texts["toolLine"].replace("{name}", M("t1")).replace("{description}", M("d1"))
second = texts["toolLine"].replace("{name}", M("t2")).replace("{description}", M("d2"))
if not (lines.startswith(first) and lines.endswith(second)):
    raise ProbeError("tool lines: not one line per tool")
texts["toolSeparator"] = lines[len(first) : len(lines) - len(second)]
prefix = texts["toolLine"].split("{description}")[0].replace("{name}", M("f"))
fn_line = BE.format_tools_for_prompt({M("f"): tool_fn})
value_line = BE.format_tools_for_prompt({M("f"): 7})
if not fn_line.startswith(prefix) or not value_line.startswith(prefix):
    raise ProbeError("tool lines without a description: unexpected shape")
texts["toolFunction"] = fn_line[len(prefix) :]
texts["toolValue"] = template(value_line[len(prefix) :], [("int", "type")], "tool value")

with_section = system(section_probe, one_tool, orchestrator=False)
start, end = with_section.index(M("A")) + len(M("A")), with_section.index(M("B"))
section = with_section[start:end]
texts["toolsSection"] = template(section, [(line, "tools")], "tools section")
texts["customToolsSection"] = texts["toolsSection"]
if system(section_probe, None, orchestrator=False) != M("A") + M("B"):
    raise ProbeError("without tools the tools section is not empty")

suffixed = system(M("S"), None, orchestrator=True)
if not suffixed.startswith(M("S")):
    raise ProbeError("the system prompt does not start with its template")
texts["customSystemSuffix"] = suffixed[len(M("S")) :]
default_template = P.RLM_SYSTEM_PROMPT.format(custom_tools_section=M("TOOLS"))
texts["system"] = template(default_template, [(M("TOOLS"), "tools_section")], "system") + texts["customSystemSuffix"] + "{history}"


class Recorder:
    def __init__(self, reply="summary"):
        self.prompts = []
        self.reply = reply

    def completion(self, prompt, *a, **k):
        self.prompts.append(prompt)
        return self.reply


stub = NS(system_prompt=M("S"), custom_tools=None, orchestrator=False, user_prologue=None, compaction=True, logger=None,
          backend="openai", backend_kwargs={"model_name": "m"}, verbose=NS(print_compaction=lambda *a, **k: None))
compacted = R.RLM._setup_prompt(stub, "x")[0]["content"]
if not compacted.startswith(M("S")):
    raise ProbeError("compaction sentence: unexpected shape")
texts["systemCompaction"] = compacted[len(M("S")) :]
for slot in ["systemRecursionOn", "systemRecursionOff", "childLlmModelSub", "childLlmModelOwn", "systemFinish",
             "systemFinishFinalPatterns", "systemExample"]:
    texts[slot] = ""

# Metadata message.
body = P.build_rlm_system_prompt("x", meta(M("type"), M("total")))[1]["content"]
texts["metadata"] = template(body, [(M("type"), "type"), (M("total"), "total_chars")], "metadata")
with_query = P.build_rlm_system_prompt("x", meta(M("type"), M("total")), root_prompt=M("query"))[1]["content"]
texts["metadataQuery"] = template(template(with_query, [(body, "metadata")], "metadata with query"), [(M("query"), "query")], "query")
for slot in ["metadataChunksArray", "metadataChunksObject", "metadataChunksMore"]:
    texts[slot] = ""
texts["typeString"] = T.QueryMetadata("x").context_type
texts["typeArray"] = T.QueryMetadata(["x"]).context_type
texts["typeObject"] = T.QueryMetadata({"k": "x"}).context_type


# Per-turn prompt.
def turn(iteration, contexts=1, histories=0):
    return P.build_user_prompt(iteration=iteration, context_count=contexts, history_count=histories, max_iterations=M("max"))["content"]


later = turn(776)
texts["turn"] = template(template(later, [("777", "turn")], "turn"), [(M("max"), "max_iterations")], "turn")
first_turn = turn(0).replace(M("max"), "{max_iterations}")
rendered_one = texts["turn"].replace("{turn}", "1")
if not first_turn.endswith(rendered_one):
    raise ProbeError("first turn: does not end as later turns do")
texts["turnFirst"] = first_turn[: len(first_turn) - len(rendered_one)] + texts["turn"]


def note(text, what):
    if not text.startswith(later):
        raise ProbeError(f"{what}: not appended to the turn prompt")
    return text[len(later) :]


texts["contextsNote"] = template(note(turn(776, contexts=7771), "contexts note"), [("7771", "count"), ("7770", "last")], "contexts note")
texts["historyNoteOne"] = note(turn(776, histories=1), "history note")
texts["historyNoteMany"] = template(note(turn(776, histories=7771), "histories note"), [("7771", "count"), ("7770", "last")], "histories note")


# REPL output.
def result(stdout="", stderr="", names=()):
    return NS(stdout=stdout, stderr=stderr, locals={n: "" for n in names}, execution_time=0.0, rlm_calls=[], final_answer=None)


def formatted(**kw):
    return PA.format_execution_result(result(**kw))


def iteration(*results, cap=None):
    it = NS(prompt=[], response="r", code_blocks=[NS(code="c", result=r) for r in results], iteration_time=0.0, final_answer=None)
    msgs = PA.format_iteration(it) if cap is None else PA.format_iteration(it, max_character_length=cap)
    return msgs[1]["content"]


texts["noOutput"] = formatted()
out = formatted(stdout=M("out"))
texts["blockStdout"] = template(out, [(M("out"), "text")], "stdout")
texts["blockStderr"] = template(formatted(stderr=M("err")), [(M("err"), "text")], "stderr")
both = formatted(stdout=M("out"), stderr=M("err"))
err = texts["blockStderr"].replace("{text}", M("err"))
if not (both.startswith(out) and both.endswith(err)):
    raise ProbeError("stdout and stderr: unexpected shape")
texts["blockPartSeparator"] = both[len(out) : len(both) - len(err)]
listing = formatted(names=[M("a"), M("b")])
i, j = listing.index(M("a")), listing.index(M("b"))
quote = listing[i - 1]
if listing[i + len(M("a"))] != quote or listing[j - 1] != quote or listing[j + len(M("b"))] != quote:
    raise ProbeError("variable listing: names not quoted as expected")
texts["variableName"] = quote + "{name}" + quote
texts["variableSeparator"] = listing[i + len(M("a")) + 1 : j - 1]
texts["blockVariables"] = listing[: i - 1] + "{names}" + listing[j + len(M("b")) + 1 :]
texts["blockError"] = "{name}: {message}"

single = iteration(result(stdout=M("out")))
texts["replOutput"] = template(single, [(out, "output")], "REPL output")
o1, o2 = formatted(stdout=M("o1")), formatted(stdout=M("o2"))
multi = iteration(result(stdout=M("o1")), result(stdout=M("o2")))
h1 = multi[: multi.index(o1)]
rest = multi[multi.index(o1) + len(o1) : len(multi) - len(o2)]
header = None
for k in range(len(h1)):
    if h1[k] == "1":
        h2 = h1[:k] + "2" + h1[k + 1 :]
        if rest.endswith(h2):
            header = (h1[:k], h1[k + 1 :], rest[: len(rest) - len(h2)])
if header is None:
    raise ProbeError("REPL output of several blocks: block headers not found")
texts["replOutputBlock"] = header[0] + "{block}" + header[1] + "{output}"
texts["replOutputSeparator"] = header[2]

cap_default = inspect.signature(PA.format_iteration).parameters["max_character_length"].default
long_out = "x" * 50
full = formatted(stdout=long_out)
cut_msg = iteration(result(stdout=long_out), cap=10)
kept = texts["replOutput"].replace("{output}", full[:10])
if not cut_msg.startswith(kept):
    raise ProbeError("truncation: the kept part is not the output's start")
texts["truncated"] = template(cut_msg[len(kept) :], [(str(len(full) - 10), "cut")], "truncation note")

# The final-answer request, the compaction texts and the depth-0 call.
recorder = Recorder()
R.RLM._default_answer(stub, [{"role": "system", "content": "s"}], recorder)
final = recorder.prompts[-1][-1]
texts["finalAnswerRequest"] = final["content"]
env = NS(append_compaction_entry=lambda entry: None)
recorder = Recorder()
history = [{"role": "system", "content": "s"}, {"role": "user", "content": "m"}]
new_history = R.RLM._compact_history(stub, recorder, env, history, compaction_count=M("count"))
request = recorder.prompts[-1][-1]
if request["role"] != "user" or len(new_history) != 4 or new_history[2]["content"] != "summary":
    raise ProbeError("compaction: unexpected shape")
texts["compactionRequest"] = request["content"]
texts["compactionNote"] = template(new_history[3]["content"], [(M("count"), "count")], "compaction note")

sent = []
saved = R.get_client
R.get_client = lambda *a, **k: NS(completion=lambda message, *a2, **k2: sent.append(message) or "r")
try:
    R.RLM._fallback_answer(stub, M("ctx"))
finally:
    R.get_client = saved
if sent != [M("ctx")]:
    raise ProbeError("the depth-0 call does not send the context as it is")
texts["directCall"] = "{context}"
texts["directCallQuery"] = "{context}"

# What paper-era FINAL_VAR returns for a name that is no variable, when the library's REPL has
# FINAL_VAR (it went with the answer dict; the importer then keeps RLM Studio's texts).
try:
    final_var = getattr(importlib.import_module("rlm.environments.local_repl").LocalREPL, "_final_var", None)
except ImportError:
    final_var = None
final_var_sample = None
if final_var is not None:
    def not_found(names, name):
        return final_var(NS(locals={n: 1 for n in names}, _last_final_answer=None), name)

    listed = str([M("v1"), M("v2")])
    texts["finalVarNotFound"] = template(
        template(not_found([M("v1"), M("v2")], M("name")), [(M("name"), "name")], "FINAL_VAR not found"),
        [(listed, "available")],
        "FINAL_VAR not found",
    )
    texts["finalVarNoVariables"] = template(not_found([], M("name")), [(M("name"), "name")], "FINAL_VAR without variables")
    final_var_sample = not_found(["context_0", "x"], "y")

# What the library's REPL itself returns to the code: SHOW_VARS(), and what llm_query returns for
# an empty prompt and for a call that failed, alone and in a batch (through the library's own LM
# handler, given a client that fails with a marker). Each only where the library has it.
try:
    local_repl = importlib.import_module("rlm.environments.local_repl").LocalREPL
except ImportError:
    local_repl = None
repl_samples = {}
show_vars = getattr(local_repl, "_show_vars", None)
if show_vars is not None:
    texts["showVarsEmpty"] = show_vars(NS(locals={}))
    shown = show_vars(NS(locals={M("v"): 1}))
    texts["showVars"] = template(shown, [(str({M("v"): type(1).__name__}), "variables")], "SHOW_VARS")
    repl_samples["showVars"] = show_vars(NS(locals={"context_0": "x", "n": 3}))


class FailingClient:
    model_name = "probe-model"

    def __init__(self, why):
        self.why = why

    def completion(self, *a, **k):
        raise RuntimeError(self.why)

    async def acompletion(self, *a, **k):
        raise RuntimeError(self.why)

    def get_last_usage(self):
        return None


def with_failing_handler(why, call):
    handler = importlib.import_module("rlm.core.lm_handler").LMHandler(FailingClient(why))
    address = handler.start()
    try:
        return call(NS(lm_handler_address=address, depth=1, _pending_llm_calls=[]))
    finally:
        handler.stop()


llm_query = getattr(local_repl, "_llm_query", None)
llm_query_batched = getattr(local_repl, "_llm_query_batched", None)
if llm_query is not None and llm_query_batched is not None:
    def failed(why):
        return with_failing_handler(why, lambda repl: (llm_query(repl, "p"), llm_query_batched(repl, ["p"]), llm_query(repl, "")))

    one, batch, empty = failed(M("error"))
    if not isinstance(batch, list) or len(batch) != 1:
        raise ProbeError("a failed batch: not one reply per prompt")
    texts["subcallFailed"] = template(one, [(M("error"), "error")], "a failed llm_query")
    texts["subcallFailedBatched"] = template(batch[0], [(M("error"), "error")], "a failed batch item")
    texts["emptyPrompt"] = empty
    one, batch, _ = failed("upstream down")
    repl_samples["subcallFailed"] = one
    repl_samples["subcallFailedBatched"] = batch[0]

# Samples built with real values, for the importer to check its pack against.
samples = {
    "systemPlain": system(P.RLM_SYSTEM_PROMPT),
    "systemTools": system(P.RLM_SYSTEM_PROMPT, {"lookup": {"tool": tool_fn, "description": "finds a record"}, "limit": 3}),
    "metadataQuery": P.build_rlm_system_prompt("x", T.QueryMetadata("abcdef"), root_prompt="Who?")[1]["content"],
    "metadataList": P.build_rlm_system_prompt("x", T.QueryMetadata(["ab", "c"]))[1]["content"],
    "turn1": P.build_user_prompt(iteration=0, max_iterations=30)["content"],
    "turn5": P.build_user_prompt(iteration=4, context_count=3, history_count=2, max_iterations=30)["content"],
    "turn6": P.build_user_prompt(iteration=5, context_count=2, history_count=1, max_iterations=12)["content"],
    "replOutput3": iteration(result(stdout="a\\n", names=["x", "y"]), result(stderr="\\nNameError: name 'q' is not defined"), result()),
    "replOutputCut": iteration(result(stdout="y" * (cap_default + 7))),
    "compactionNote2": R.RLM._compact_history(stub, Recorder(), env, history, compaction_count=2)[3]["content"],
}
if final_var_sample is not None:
    samples["finalVarNotFound"] = final_var_sample
samples.update(repl_samples)

version = None
try:
    from importlib.metadata import version as _v
    version = _v("rlms")
except Exception:
    version = getattr(rlm, "__version__", None)
if version is None:
    import os, re
    project = os.path.join(os.path.dirname(os.path.dirname(rlm.__file__)), "pyproject.toml")
    if os.path.exists(project):
        with open(project, encoding="utf-8") as f:
            found = re.search(r'^version\\s*=\\s*"([^"]+)"', f.read(), re.M)
        version = found.group(1) if found else None

print(json.dumps({
    "texts": texts,
    "finalAnswerRole": final["role"],
    "outputCap": cap_default,
    "version": version,
    "path": rlm.__file__,
    "python": sys.version.split()[0],
    "samples": samples,
}))
`;
