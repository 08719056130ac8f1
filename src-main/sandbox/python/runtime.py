# The Python half of both Python REPLs. In Pyodide it is imported once inside the interpreter
# (before the memory snapshot is taken, so a fresh interpreter starts with it loaded) and the
# JavaScript glue in the isolate calls these functions. In CPython (`--repl cpython`) it is the
# program the OS sandbox runs: `_serve` at the end carries the same operations and host calls
# over a socket (descriptor 3). Either way the model's code sees only the names installed in `ns`.
#
# Namespace semantics follow the reference library's LocalREPL, so blocks recorded there
# re-run to the same output: a block that raises loses its assignments (in-place mutations
# stay), names starting with `_` are not listed, SHOW_VARS() shows the variables as they were
# when the block started, and the context is loaded by running a small block (which leaves
# `f`, and `json` for structured contexts, in the namespace as the reference does). Unlike the
# reference, functions see names defined in later blocks, `class` works and builtins are
# complete: the isolate around the interpreter is the security boundary, not the namespace.
import builtins
import io
import json
import math
import os
import re
import reprlib
import sys
import time
import types

# Pyodide: imported here so they are in the memory snapshot and the first block that uses them
# pays nothing. CPython starts a process per session and imports from disk quickly: they would
# only add to every start.
if sys.platform == "emscripten":
    import collections  # noqa: F401
    import datetime  # noqa: F401
    import functools  # noqa: F401
    import itertools  # noqa: F401
    import random  # noqa: F401
    import re
    import statistics  # noqa: F401
    import string  # noqa: F401
    import textwrap  # noqa: F401

SCAFFOLD = (
    "llm_query",
    "llm_query_batched",
    "rlm_query",
    "rlm_query_batched",
    "SHOW_VARS",
)
SIMPLE_TYPES = (str, int, float, bool, list, dict, tuple)
FLUSH_SECONDS = 0.02
BLOCKED_MODULES = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip", "pyodide_http")

_host = None
_config = {}
_ns = {}
_answer_captured = None
_block_active = False
_vars_at_start = {}
_compaction_history = None
_history_aliased = False


class _Stream(io.TextIOBase):
    """A block's stdout or stderr: kept up to a cap, sent to the host in pieces."""

    last_send = 0.0
    eager = True

    def __init__(self, index):
        self.index = index
        self.reset()

    def reset(self):
        self.parts = []
        self.pending = 0
        self.accepted = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if not _block_active:
            return len(text)
        room = _config["output_cap"] - self.accepted
        if room <= 0:
            self.dropped += len(text)
            return len(text)
        kept = text if len(text) <= room else text[:room]
        self.dropped += len(text) - len(kept)
        self.parts.append(kept)
        self.pending += len(kept)
        self.accepted += len(kept)
        # Sent by size or age, so a block that later hangs or is killed loses little output.
        # Sent by size or age, and at once until a block's first line is out, so a block that
        # later hangs or is killed loses little output.
        due = time.monotonic() - _Stream.last_send >= FLUSH_SECONDS
        if _Stream.eager or self.pending >= _config["flush_chars"] or due:
            self.send()
        return len(text)

    def send(self):
        _Stream.last_send = time.monotonic()
        if self.pending == 0:
            return
        text = "".join(self.parts)
        if "\n" in text:
            _Stream.eager = False
        self.parts = []
        self.pending = 0
        _host.flush(self.index, text, self.dropped)

    def take(self):
        text = "".join(self.parts)
        self.parts = []
        self.pending = 0
        return text


_stdout = _Stream(0)
_stderr = _Stream(1)


def _send_output():
    _stdout.send()
    _stderr.send()


class _AnswerDict(dict):
    """`answer`: setting `answer["ready"]` to a truthy value submits `str(answer["content"])`."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        dict.__setitem__(self, "content", "")
        dict.__setitem__(self, "ready", False)

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)
        if key == "ready" and value:
            _capture(self.get("content", ""))

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]


def _capture(content):
    if _block_active:
        _submit(str(content))


def _submit(value):
    """The block's answer; the host hears of it at once, so a block killed later keeps it."""
    global _answer_captured
    _answer_captured = value
    _host.submit(value)


# ---- the functions the model's code calls ------------------------------------------------------


def _model_arg(model):
    return "" if model is None else str(model)


# As the reference, a missing prompt is an error string (the prompt pack's) and no call: a model is
# never asked "None".
def llm_query(prompt, model=None):
    if prompt is None or prompt == "":
        return _fill(_config["empty_prompt"], {})
    _send_output()
    return str(_host.call("llm", _as_prompt(prompt), _model_arg(model)))


def llm_query_batched(prompts, model=None):
    return _batched("llm_query_batched", "llm_batched", prompts, model)


def rlm_query(prompt, model=None):
    if prompt is None or prompt == "":
        return _fill(_config["empty_prompt"], {})
    _send_output()
    return str(_host.call("rlm", _as_prompt(prompt), _model_arg(model)))


def rlm_query_batched(prompts, model=None):
    return _batched("rlm_query_batched", "rlm_batched", prompts, model)


def _batched(function, kind, prompts, model):
    if isinstance(prompts, (str, bytes)) or not hasattr(prompts, "__iter__"):
        return _fill(_config["bad_prompts"], {"function": function, "type": type(prompts).__name__})
    items = [_as_prompt(p) for p in prompts]
    if not items:
        return []
    _send_output()
    result = json.loads(str(_host.call(kind, json.dumps(items), _model_arg(model))))
    return [str(r) for r in result]


def _as_prompt(prompt):
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, (list, dict)):
        return json.dumps(prompt, ensure_ascii=False, default=str)
    return str(prompt)


def SHOW_VARS():
    available = {k: type(v).__name__ for k, v in _vars_at_start.items()}
    if not available:
        return _fill(_config["show_vars_empty"], {})
    return _fill(_config["show_vars"], {"variables": str(available)})


def FINAL_VAR(variable_name):
    """Paper-era: answer with a variable's value (recorded as this block's submission)."""
    name = variable_name.strip().strip("\"'") if isinstance(variable_name, str) else None
    # The reference's REPL makes a block's assignments variables only when the block ends: in a
    # block, FINAL_VAR sees those of earlier blocks (the reference's semantics, from the pack).
    seen = _vars_at_start if _block_active and _config.get("final_var_block_start") else _ns
    if name is None:
        value = str(variable_name)
    elif name in seen and _is_user_name(name):
        # Only the model's variables: the reference looked in its locals, where functions are not.
        value = str(seen[name])
    else:
        listed = [k for k in seen if _is_user_name(k)]
        if not listed:
            return _fill(_config["final_var_no_variables"], {"name": name})
        return _fill(_config["final_var_not_found"], {"name": name, "available": str(listed)})
    if _block_active:
        _submit(value)
    return value


def _fill(template, values):
    """A prompt pack's text with the placeholders named in `values` filled in, in one pass; other
    braces stay text."""
    return re.sub(r"\{([a-z][a-z_]*)\}", lambda m: values.get(m.group(1), m.group(0)), template)


def FINAL(text):
    """Paper-era: answer with the given text."""
    value = str(text)
    if _block_active:
        _submit(value)
    return value


_tool_error_classes = {}


def _tool_error_class(name):
    """What a failed tool raises: the built-in exception of its error's name (ValueError), else a
    class of that name (QuotaError, JavaScript's Error), so the model sees the tool's own type."""
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls
    if name not in _tool_error_classes:
        _tool_error_classes[name] = type(name, (Exception,), {"__module__": "builtins"})
    return _tool_error_classes[name]


_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _tag_floats(value, seen):
    """`value` with each float that is not finite as {"$float": "NaN" | "Infinity" | "-Infinity"}."""
    if isinstance(value, float) and not math.isfinite(value):
        return {"$float": _NON_FINITE[repr(value)]}
    if isinstance(value, (list, tuple, dict)):
        if id(value) in seen:
            return value  # a cycle: json.dumps names it
        seen = seen | {id(value)}
        if isinstance(value, dict):
            return {k: _tag_floats(v, seen) for k, v in value.items()}
        return [_tag_floats(v, seen) for v in value]
    return value


def _host_json(value):
    """Arguments for the host as JSON. json.dumps writes a float that is not finite as a bare
    word JSON lacks (the host could not read the call); such a float goes tagged, and the host
    gives the tool JavaScript's NaN or infinity."""
    try:
        return json.dumps(value, default=str, allow_nan=False)
    except ValueError:
        return json.dumps(_tag_floats(value, frozenset()), default=str)


def _make_tool(name):
    def tool(*args, **kwargs):
        _send_output()
        payload = _host_json({"args": list(args), "kwargs": kwargs})
        reply = json.loads(str(_host.call("tool", name, payload)))
        if "err" in reply:
            err = reply["err"]
            raise _tool_error_class(str(err.get("name", "")) or "Error")(str(err.get("message", "")))
        return reply.get("ok")

    tool.__name__ = name
    tool.__qualname__ = name
    return tool


# ---- namespace ---------------------------------------------------------------------------------


def _functions():
    names = list(SCAFFOLD) + list(_config.get("tool_functions", []))
    if _config.get("final_var"):
        names += ["FINAL_VAR", "FINAL"]
    return names


def _is_user_name(name):
    return not name.startswith("_") and name not in _functions()


def _restore_scaffold():
    """After every block: functions re-bound, `answer` re-wrapped, aliases re-pointed."""
    global _answer_captured
    g = globals()
    for name in SCAFFOLD:
        _ns[name] = g[name]
    if _config.get("final_var"):
        _ns["FINAL_VAR"] = FINAL_VAR
        _ns["FINAL"] = FINAL
    for name in _config.get("tool_functions", []):
        _ns[name] = _make_tool(name)
    current = _ns.get("answer")
    if not isinstance(current, _AnswerDict):
        replacement = _AnswerDict()
        if isinstance(current, dict):
            for k, v in current.items():
                dict.__setitem__(replacement, k, v)
            if current.get("ready") and _answer_captured is None:
                _answer_captured = str(current.get("content", ""))
        _ns["answer"] = replacement
    if "context_0" in _ns:
        _ns["context"] = _ns["context_0"]
    if _compaction_history is not None:
        _ns["history"] = _compaction_history
    elif "history_0" in _ns:
        _ns["history"] = _ns["history_0"]


def _user_vars():
    return {k: v for k, v in _ns.items() if _is_user_name(k) and k != "answer"}


def _simple_vars():
    return [k for k, v in _ns.items() if _is_user_name(k) and isinstance(v, SIMPLE_TYPES)]


def _error(exc):
    return {"name": type(exc).__name__, "message": str(exc)}


# ---- operations called by the glue ---------------------------------------------------------------


def setup(host, config_json):
    """Binds the host hooks and builds the namespace; called once per interpreter."""
    global _host, _config, _ns, _compaction_history
    _host = host
    _config = json.loads(config_json)
    _seal()
    _ns = {"__name__": "__main__", "__builtins__": builtins}
    _ns["answer"] = _AnswerDict()
    if _config.get("compaction"):
        # Before the contexts, as the reference's REPL makes it: the order variables are listed in.
        _compaction_history = []
        _ns["history"] = _compaction_history
    for name, value in json.loads(_config.get("tool_values", "{}")).items():
        _ns[name] = value
    _restore_scaffold()
    sys.stdin = io.StringIO("")


def _seal():
    """No route from the model's code to the JavaScript side of the interpreter."""

    class _Blocked:
        def find_spec(self, name, path=None, target=None):
            root = name.split(".")[0]
            if root in BLOCKED_MODULES:
                raise ModuleNotFoundError(f"No module named '{name}' (not available in this sandbox)", name=name)
            return None

    # The importers are classes; Pyodide's own finders (JavaScript modules, packages from a
    # CDN) go.
    kept = ("BuiltinImporter", "FrozenImporter", "PathFinder")
    sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, "__name__", type(f).__name__) in kept]
    sys.meta_path.insert(0, _Blocked())
    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED_MODULES:
            del sys.modules[name]


def load_context(index, is_json, data):
    """`context_{index}` from the UTF-8 bytes in `data` (a JavaScript Uint8Array), leaving the
    namespace as the reference's loader block (`with open(path) as f: context_N = f.read()`, or
    `json.load(f)` after `import json`) does: `json` and `f` (a closed file) are bound before the
    context, `context` follows for index 0. Decoding the bytes in one call is several times
    faster than reading a file in text mode; the universal-newline translation is the same."""
    name = f"context_{index}"
    # Pyodide hands over a JavaScript Uint8Array; the CPython transport, bytes.
    raw = data if isinstance(data, bytes) else data.to_bytes()
    if is_json:
        _ns["json"] = json
    path = f"/tmp/rlm/{name}.{'json' if is_json else 'txt'}"
    os.makedirs("/tmp/rlm", exist_ok=True)
    with open(path, "w"):
        pass
    with open(path) as f:
        _ns["f"] = f
    os.remove(path)
    if is_json:
        value = json.loads(raw)
    else:
        value = raw.decode("utf-8")
        del raw
        if "\r" in value:
            value = value.replace("\r\n", "\n").replace("\r", "\n")
    _ns[name] = value
    if index == 0:
        _ns["context"] = value


def set_value(name, value_json):
    value = json.loads(value_json)
    _ns[name] = value
    if name == "history_0" and _compaction_history is None:
        _ns["history"] = value


def append_history(items_json):
    """Extends `history` under compaction in place, as the reference appends its entries."""
    global _compaction_history
    if _compaction_history is None:
        _compaction_history = []
    _compaction_history.extend(json.loads(items_json))
    _ns["history"] = _compaction_history


def run(code):
    """Runs one block; returns the outcome as JSON."""
    global _answer_captured, _block_active, _vars_at_start
    _answer_captured = None
    _stdout.reset()
    _stderr.reset()
    _vars_at_start = _user_vars()
    _Stream.eager = True
    before = dict(_ns)
    error = None
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _stdout, _stderr
    _block_active = True
    try:
        compiled = compile(code, "<string>", "exec")
        exec(compiled, _ns)
    except BaseException as exc:  # noqa: BLE001 - every failure is the model's to see
        error = _error(exc)
        # As in the reference: a failed block's assignments are lost.
        _ns.clear()
        _ns.update(before)
    finally:
        sys.stdout, sys.stderr = saved
        _block_active = False
    try:
        _restore_scaffold()
    except BaseException as exc:  # noqa: BLE001
        error = error or _error(exc)
    outcome = {
        "stdout": _stdout.take(),
        "stderr": _stderr.take(),
        "dropped": [_stdout.dropped, _stderr.dropped],
        "error": error,
        "variables": _simple_vars(),
        "locals": _short_locals(),
        "submitted": _answer_captured,
    }
    _answer_captured = None
    return json.dumps(outcome)


# Bounded reprs: a list or dict of millions of items is cut after a few, never rendered whole.
_short_repr = reprlib.Repr()
_short_repr.maxstring = 200
_short_repr.maxother = 200
_short_repr.maxlist = _short_repr.maxtuple = _short_repr.maxdict = _short_repr.maxset = _short_repr.maxfrozenset = 20
_short_repr.maxlevel = 3

LOCAL_CHARS = 200


def _bounded_repr(value):
    try:
        text = _short_repr.repr(value)
    except BaseException:  # noqa: BLE001
        text = f"<{type(value).__name__}>"
    return text


def _preview(value):
    return _bounded_repr(value)[:200]


class _TooBig(Exception):
    pass


def _beyond_json(value):
    """A number the host cannot read back as itself: JSON has no NaN or infinity (json.dumps
    would write them and the host could not read the outcome), JavaScript no exact int past
    2**53. Such numbers are logged as their repr."""
    if isinstance(value, float):
        return not math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**53


def _as_logged(value, depth=0):
    """The value as the reference's logger serialises a local (modules and callables by name,
    containers as JSON lists and objects, anything else by repr), for small values only."""
    if value is None or isinstance(value, (bool, int, float, str)):
        if isinstance(value, str) and len(value) > LOCAL_CHARS:
            raise _TooBig
        return repr(value) if _beyond_json(value) else value
    if isinstance(value, types.ModuleType):
        return f"<module '{value.__name__}'>"
    if isinstance(value, (list, tuple, dict)):
        if depth > 3 or len(value) > 50:
            raise _TooBig
        if isinstance(value, dict):
            return {str(k): _as_logged(v, depth + 1) for k, v in value.items()}
        return [_as_logged(v, depth + 1) for v in value]
    if callable(value):
        return f"<{type(value).__name__} '{getattr(value, '__name__', '?')}'>"
    return _bounded_repr(value)


def _short_local(value):
    """A variable as a block's `locals` records it: as the reference's logger writes it when
    that takes at most LOCAL_CHARS characters of JSON; else a string of at most LOCAL_CHARS
    (a string's beginning, or a bounded repr) ending in an ellipsis."""
    if isinstance(value, str):
        return value if len(value) <= LOCAL_CHARS else value[:LOCAL_CHARS] + "\u2026"
    if _beyond_json(value):
        return repr(value)[:LOCAL_CHARS]
    try:
        logged = _as_logged(value)
        if len(json.dumps(logged, separators=(",", ":"))) <= LOCAL_CHARS:
            return logged
    except Exception:  # noqa: BLE001 - too big, or the model's own class misbehaving
        pass
    text = _bounded_repr(value)
    return text if len(text) <= LOCAL_CHARS else text[: LOCAL_CHARS - 1] + "\u2026"


def _short_locals():
    return {name: _short_local(value) for name, value in _ns.items() if _is_user_name(name)}


def _size(value):
    if isinstance(value, (str, list, tuple, dict, set, frozenset, bytes)):
        return len(value)
    return None


def list_variables():
    out = []
    for name, value in _ns.items():
        if not _is_user_name(name):
            continue
        # `answer` is a dict to the model; its subclass is ours.
        kind = "dict" if type(value) is _AnswerDict else type(value).__name__
        out.append({"name": name, "type": kind, "size": _size(value), "preview": _preview(value)})
    return json.dumps(out)


# ---- CPython: the operations and host calls over a socket ------------------------------------------
#
# Frames both ways: two big-endian u32 (header length, payload length), a JSON header, a payload.
# Host -> here: {"t": "op", "op": NAME, "arg": TEXT} (payload: the code, a context's bytes, JSON)
# and {"t": "reply", "id": N} (payload: the answer). Here -> host: {"t": "ready"}, {"t": "done",
# "ok": BOOL, "error": TEXT} (payload: the result), {"t": "call", "id": N, "kind": K, "b": TEXT}
# (payload: the prompt, the prompts' JSON or the tool's arguments) and {"t": "out", "s": 0|1,
# "dropped": N} (payload: text). Host calls may come from any thread, several at once; a reader
# thread answers each caller, so `ThreadPoolExecutor(16).map(llm_query, ...)` keeps 16 in flight.


class _PipeHost:
    def __init__(self, fd):
        import struct
        import threading

        self._fd = fd
        # Open for the process's life: the pipe is read until the host closes it.
        self._reader = open(fd, "rb", buffering=1 << 16, closefd=False)  # noqa: SIM115
        self._struct = struct
        self._send_lock = threading.Lock()
        self._calls_lock = threading.Lock()
        self._calls = {}
        self._next = 0
        self._threading = threading

    def _send(self, header, payload=b""):
        head = json.dumps(header).encode()
        data = memoryview(self._struct.pack(">II", len(head), len(payload)) + head + payload)
        with self._send_lock:
            while data:
                data = data[os.write(self._fd, data) :]

    def _receive(self):
        prefix = self._reader.read(8)
        if len(prefix) < 8:
            return None, b""
        head_len, body_len = self._struct.unpack(">II", prefix)
        header = json.loads(self._reader.read(head_len))
        body = self._reader.read(body_len) if body_len else b""
        if len(body) < body_len:
            return None, b""
        return header, body

    def call(self, kind, a, b):
        waiter = {"event": self._threading.Event(), "value": ""}
        with self._calls_lock:
            self._next += 1
            call_id = self._next
            self._calls[call_id] = waiter
        self._send({"t": "call", "id": call_id, "kind": kind, "b": b}, a.encode("utf-8", "surrogatepass"))
        waiter["event"].wait()
        return waiter["value"]

    def flush(self, index, text, dropped):
        self._send({"t": "out", "s": index, "dropped": dropped}, text.encode("utf-8", "surrogatepass"))

    def submit(self, text):
        self._send({"t": "submit"}, text.encode("utf-8", "surrogatepass"))

    def serve(self):
        """Reads frames: answers go to their callers, operations to the main thread, in order."""
        ops = []
        more = self._threading.Condition()

        def read():
            while True:
                header, body = self._receive()
                if header is None:
                    with more:
                        ops.append(None)
                        more.notify()
                    return
                if header.get("t") == "reply":
                    with self._calls_lock:
                        waiter = self._calls.pop(header.get("id"), None)
                    if waiter is not None:
                        waiter["value"] = body.decode("utf-8", "surrogatepass")
                        waiter["event"].set()
                elif header.get("t") == "op":
                    with more:
                        ops.append((header, body))
                        more.notify()

        self._threading.Thread(target=read, name="rlm-host-reader", daemon=True).start()
        self._send({"t": "ready"})
        while True:
            with more:
                while not ops:
                    more.wait()
                item = ops.pop(0)
            if item is None:
                return
            header, body = item
            try:
                result = _perform(self, header.get("op"), header.get("arg", ""), body)
                self._send({"t": "done", "ok": True}, result.encode("utf-8", "surrogatepass"))
            except BaseException as exc:  # noqa: BLE001 - the host decides what a failed op means
                self._send({"t": "done", "ok": False, "error": f"{type(exc).__name__}: {exc}"})


def _perform(host, op, arg, body):
    if op == "setup":
        # The session's own limits (the address space fits its contexts), set before any of its
        # code runs: a process started ahead of its session is not yet bound to one.
        _limit_resources(json.loads(arg).get("limits", {}))
        setup(host, arg)
        return ""
    if op == "run":
        # A backstop behind the host's watchdog: past the block's CPU time plus a second, the
        # kernel ends the process (the code may lower the soft limit, never raise the hard one).
        import resource

        used = time.process_time()
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        soft = int(used + float(arg) / 1000) + 2
        if hard == resource.RLIM_INFINITY or soft <= hard:
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        return run(body.decode("utf-8", "surrogatepass"))
    if op == "context":
        spec = json.loads(arg)
        load_context(spec["index"], spec["json"], body)
        return ""
    if op == "set":
        set_value(arg, body.decode("utf-8"))
        return ""
    if op == "history":
        append_history(body.decode("utf-8"))
        return ""
    if op == "list":
        return list_variables()
    raise ValueError(f"unknown op {op}")


def _limit_resources(limits):
    """The sandbox's resource limits, soft and hard, before any of the model's code runs: it can
    lower them, never raise them."""
    import resource

    for name, value in limits.items():
        kind = getattr(resource, name, None)
        if kind is not None and value is not None:
            resource.setrlimit(kind, (value, value))


def _site_without_site(import_path):
    """Started with -S (no `site`, which costs ms and runs .pth files): the import path `site` made
    outside, and the names it adds to builtins."""
    for path in import_path:
        if path not in sys.path:
            sys.path.append(path)
    if "site" not in sys.modules:
        import _sitebuiltins

        builtins.exit = _sitebuiltins.Quitter("exit", "Ctrl-D (i.e. EOF)")
        builtins.quit = _sitebuiltins.Quitter("quit", "Ctrl-D (i.e. EOF)")
        builtins.help = _sitebuiltins._Helper()


def _serve(argv):
    config = json.loads(argv[1])
    _limit_resources(config.get("limits", {}))
    _site_without_site(config.get("import_path", []))
    # Few, small threads: each reserves its stack against the address-space limit.
    import threading

    threading.stack_size(config.get("thread_stack", 1024 * 1024))
    import site

    for path in config.get("site_dirs", []):
        site.addsitedir(path)
    _PipeHost(config.get("fd", 3)).serve()


if __name__ == "__main__":
    _serve(sys.argv)
