// The Python the scenario policy writes when the session's REPL is Python: the same steps,
// tag lines and sub-LM prompts as the JavaScript in scenarios.ts, so a scenario plays out
// the same way in either language. Values from the request reach the code only through
// `py()` (a Python literal), never spliced in raw. The code keeps to what the reference
// library's REPL also runs: no `class` statements, no names starting with `_` that must
// persist, no function that reads a name defined in a later block.
import { LABEL_PATTERN } from './sub-lm.ts';
import { SECTION_HEADER_PATTERN } from './code.ts';

/** A Python literal for a JSON-like value (a JSON string is a valid Python string literal). */
export function py(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string' || typeof value === 'number') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(py).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${JSON.stringify(k)}: ${py(v)}`)
    .join(', ')}}`;
}

/** The whole context as one string, whatever its shape. */
export const TEXT_EXPR_PY = String.raw`context if isinstance(context, str) else ("\n".join(x if isinstance(x, str) else json.dumps(x) for x in context) if isinstance(context, list) else json.dumps(context))`;

/** Turn 1 everywhere: type, size and short samples; never the whole context. */
export function inspectCodePy(scope: string): string {
  return String.raw`
import json
kind = type(context).__name__
text = ${TEXT_EXPR_PY}
print("[${scope}:inspect] type=" + kind + " chars=" + str(len(text)) + (" items=" + str(len(context)) if isinstance(context, list) else ""))
print("start:", json.dumps(text[:240]))
mid = len(text) // 2
print("middle:", json.dumps(text[mid:mid + 160]))
`;
}

const SUB_FIND_NUMBER = String.raw`"TASK: find-number\nKEY: magic number\nReply with the number only, or NONE.\nTEXT:\n"`;
const SUB_SUMMARISE = String.raw`"TASK: summarise\nSummarise this text in one or two sentences.\nTEXT:\n"`;

export const NEEDLE_SEARCH_PY = String.raw`
import json, re
hay = ${TEXT_EXPR_PY}
hits = []
for m in re.finditer(r"magic number\D{0,40}?(\d[\d,]*)", hay, re.I):
    hits.append({"at": m.start(), "value": m.group(1).replace(",", "")})
    if len(hits) >= 10:
        break
print("regex hits:", len(hits), json.dumps(hits[:5]))
candidate = "NONE"
if hits:
    hit = hits[0]
    around = hay[max(0, hit["at"] - 400):hit["at"] + 400]
    read = str(llm_query(${SUB_FIND_NUMBER} + around)).strip()
    print("sub-LM reading of the window:", read)
    candidate = read if re.fullmatch(r"\d+", read) else hit["value"]
else:
    # No literal hit: let sub-LMs read the whole text in large pieces.
    pieces = [hay[i:i + 400000] for i in range(0, len(hay), 400000)]
    reads = [str(r).strip() for r in llm_query_batched([${SUB_FIND_NUMBER} + p for p in pieces])]
    found = [r for r in reads if re.fullmatch(r"\d+", r)]
    if found:
        candidate = found[0]
print("[needle:candidate]", candidate)
`;

export const AGGREGATE_INSPECT_PY = String.raw`
import json, re
kind = type(context).__name__
to_item = lambda x: x if isinstance(x, str) else json.dumps(x)
if isinstance(context, list):
    items = [to_item(x) for x in context]
elif isinstance(context, str):
    parsed = None
    if context.lstrip().startswith("["):
        try:
            parsed = json.loads(context)
        except ValueError:
            parsed = None
    items = [to_item(x) for x in parsed] if isinstance(parsed, list) else [l for l in context.split("\n") if l.strip()]
else:
    items = [to_item(x) for x in context.values()]
total_chars = sum(len(s) for s in items)
print("[aggregate:inspect] type=" + kind + " items=" + str(len(items)) + " chars=" + str(total_chars))
for it in items[:3]:
    print("sample:", json.dumps(it[:200]))
label_re = re.compile(${py(LABEL_PATTERN)}, re.I)
seen = set()
for it in items[:5000]:
    m = label_re.search(it)
    if m:
        seen.add(m.group(1).lower())
print("[aggregate:labels]", ", ".join(sorted(seen)))
`;

export function aggregateCountPy(asked: string | null): string {
  return String.raw`
import json, math
n_chunks = max(1, min(len(items), max(8, math.ceil(total_chars / 200000)), 64))
per = math.ceil(len(items) / n_chunks)
chunks = [items[i:i + per] for i in range(0, len(items), per)]
prompts = ["TASK: count-labels\nCount the items below by their label. Reply with only a JSON object mapping each label to its count.\nITEMS:\n" + "\n".join(ch) for ch in chunks]
totals = {}
def add_reply(r):
    s = str(r)
    counted = json.loads(s[s.index("{"):s.rindex("}") + 1])
    for k, v in counted.items():
        totals[k] = totals.get(k, 0) + int(v)
failed = []
replies = llm_query_batched(prompts)
for i, r in enumerate(replies):
    try:
        add_reply(r)
    except Exception:
        failed.append(i)
if failed:
    print("retrying", len(failed), "failed chunk(s)")
    again = llm_query_batched([prompts[i] for i in failed])
    still = []
    for j, r in enumerate(again):
        try:
            add_reply(r)
        except Exception:
            still.append(failed[j])
    failed = still
asked = ${py(asked)}
count = sum(totals.values()) if asked is None else totals.get(asked, 0)
print("chunks:", len(chunks), "failed:", len(failed), "totals:", json.dumps(totals))
print("[aggregate:total]", count)
if not failed:
    answer["content"] = str(count)
    answer["ready"] = True
`;
}

export const RECURSIVE_SPLIT_PY = String.raw`
import json, math, re
kind = type(context).__name__
text = ${TEXT_EXPR_PY}
as_body = lambda x: x if isinstance(x, str) else json.dumps(x)
if isinstance(context, list):
    sections = [{"title": "item " + str(i + 1), "body": as_body(x)} for i, x in enumerate(context)]
elif isinstance(context, dict):
    sections = [{"title": k, "body": as_body(v)} for k, v in context.items()]
else:
    starts = [m.start() for m in re.finditer(${py(SECTION_HEADER_PATTERN)}, text, re.M)]
    if len(starts) >= 2:
        sections = []
        for i, s in enumerate(starts):
            body = text[s:starts[i + 1] if i + 1 < len(starts) else len(text)]
            title = re.sub(r"^[=#\s]+|[=#\s]+$", "", body.split("\n")[0]) or "section " + str(i + 1)
            sections.append({"title": title, "body": body})
        if text[:starts[0]].strip():
            sections.insert(0, {"title": "preamble", "body": text[:starts[0]]})
    else:
        n = min(8, max(2, math.ceil(len(text) / 50000)))
        lines = text.split("\n")
        per = math.ceil(len(lines) / n)
        sections = [{"title": "part " + str(k + 1), "body": "\n".join(lines[i:i + per])} for k, i in enumerate(range(0, len(lines), per))]
if len(sections) > 16:
    # Too many small pieces: group them so each child gets a meaningful share.
    per = math.ceil(len(sections) / 16)
    grouped = []
    for i in range(0, len(sections), per):
        g = sections[i:i + per]
        grouped.append({"title": g[0]["title"] if len(g) == 1 else g[0]["title"] + " to " + g[-1]["title"], "body": "\n".join(s["body"] for s in g)})
    sections = grouped
print("[recursive:inspect] type=" + kind + " chars=" + str(len(text)) + " sections=" + str(len(sections)))
for s in sections[:20]:
    print("-", json.dumps(s["title"][:80]), len(s["body"]), "chars")
`;

export function recursiveCombinePy(question: string): string {
  return String.raw`
import json
question = ${py(question)}
child_prompts = ["TASK: section-report\nQUESTION: " + question + "\nTITLE: " + s["title"] + "\nSECTION:\n" + s["body"] for s in sections]
reports = rlm_query_batched(child_prompts)
parsed = []
for i, r in enumerate(reports):
    s = str(r)
    try:
        parsed.append(json.loads(s[s.index("{"):s.rindex("}") + 1]))
    except ValueError:
        parsed.append({"title": sections[i]["title"], "error": s[:200]})
for p in parsed:
    print(json.dumps(p)[:300])
terms = list(dict.fromkeys(k for p in parsed for k in (p.get("counts") or {})))
count_of = lambda p, t: (p.get("counts") or {}).get(t, 0)
if terms:
    t = terms[0]
    best = max(parsed, key=lambda p: count_of(p, t))
    total = sum(count_of(p, t) for p in parsed)
    combined = "Section \"" + best["title"] + "\" has the most " + t + " lines: " + str(count_of(best, t)) + " (of " + str(total) + " in all). Per section: " + "; ".join(p["title"] + ": " + str(count_of(p, t)) for p in parsed) + "."
else:
    combined = "\n".join(p["title"] + ": " + (p.get("summary") or p.get("error") or "") for p in parsed)
print("[recursive:combined]", combined.split("\n")[0][:300])
answer["content"] = combined
answer["ready"] = True
`;
}

export const CHILD_HEAD_PY = String.raw`
import json
kind = type(context).__name__
text = ${TEXT_EXPR_PY}
first_lines = text.split("\n", 4)[:4]
print("[child:inspect] type=" + kind + " chars=" + str(len(text)))
print("[child:head]", first_lines[0][:120])
print("next lines:", json.dumps("\n".join(first_lines[1:])[:300]))
`;

export const CHILD_SECTION_REPORT_PY = String.raw`
import json, re
body_at = text.find("\nSECTION:\n")
header = text[:body_at] if body_at >= 0 else "\n".join(text.split("\n", 3)[:3])
body = text[body_at + len("\nSECTION:\n"):] if body_at >= 0 else text
m = re.search(r"^QUESTION: (.*)$", header, re.M)
q = m.group(1) if m else ""
m = re.search(r"^TITLE: (.*)$", header, re.M)
title = m.group(1) if m else "section"
key_terms = list(dict.fromkeys(re.findall(r"\b[A-Z][A-Z0-9_]+\b", q) + re.findall(r'"([^"]+)"', q)))
body_lines = [l for l in body.split("\n") if l.strip()]
counts = {k: sum(1 for l in body_lines if k in l) for k in key_terms}
summary = str(llm_query(${SUB_SUMMARISE} + body)).strip()
report = {"title": title, "lines": len(body_lines), "counts": counts, "summary": summary}
print("[child:report]", json.dumps(report)[:300])
answer["content"] = json.dumps(report)
answer["ready"] = True
`;

export const CHILD_PASS_ON_PY = String.raw`
reply = str(llm_query(text))
print("[child:reply]", reply[:200])
answer["content"] = reply
answer["ready"] = True
`;

/** Fails on purpose: `next()` finds no header line and gives None, which has no `.strip()`. */
export const RECOVER_ATTEMPT_PY = String.raw`
print("[recover:attempt] looking for the header line")
lines = text.split("\n")
header_line = next((l for l in lines if l.startswith("#!header")), None)
print("header:", header_line.strip())
`;

export const RECOVER_FIX_PY = String.raw`
import json
lines2 = text.split("\n")
header_line2 = next((l for l in lines2 if l.startswith("#!header")), None) or next((l for l in lines2 if l.strip()), "")
print("[recover:fixed] header=" + json.dumps(header_line2.strip()[:120]))
overview = str(llm_query(${SUB_SUMMARISE} + text[:400000])).strip()
print("overview:", overview)
answer["content"] = "After recovering from an error (no header line; used the first line instead): first line " + json.dumps(header_line2.strip()[:120]) + ". " + overview
answer["ready"] = True
`;

export function neverExplorePy(step: number, fraction: number): string {
  return String.raw`
import json
at${step} = len(text) * ${fraction} // 100
print("[never:explore] step ${step} at " + str(at${step}))
print(json.dumps(text[at${step}:at${step} + 200]))
`;
}

export function genericSummaryPy(scope: string, question: string | null): string {
  return String.raw`
import math
question = ${py(question)}
size = min(400000, max(2000, math.ceil(len(text) / 8)))
chunks = [text[i:i + size] for i in range(0, len(text), size)] or [""]
prompts = ["TASK: summarise\n" + ("QUESTION: " + question + "\n" if question else "") + "PART: " + str(i + 1) + " of " + str(len(chunks)) + "\nSummarise this part in one or two sentences.\nTEXT:\n" + ch for i, ch in enumerate(chunks)]
summaries = [str(s).strip() for s in llm_query_batched(prompts)]
for i, s in enumerate(summaries):
    print("part " + str(i + 1) + ":", s[:200])
combined = "The context (" + str(len(text)) + " characters, read in " + str(len(chunks)) + (" part" if len(chunks) == 1 else " parts") + "): " + " ".join(summaries)
print("[${scope}:combined]", combined[:200])
answer["content"] = combined
answer["ready"] = True
`;
}

export function submitPy(content: string): string {
  return `answer["content"] = ${py(content)}\nanswer["ready"] = True`;
}

/** The `variables` scenario: the context_N / history_N names and the newest context's start. */
export const VARIABLES_PY = String.raw`
import json, re
names = sorted(n for n in globals() if re.match(r'^(context|history)_\d+$', n))
newest = [n for n in names if n.startswith('context_')][-1]
value = globals()[newest]
head = (value if isinstance(value, str) else json.dumps(value))[:40]
print('[variables:names]', ', '.join(names))
answer["content"] = ', '.join(names) + ' | ' + newest + ' starts: ' + head
answer["ready"] = True
`;
