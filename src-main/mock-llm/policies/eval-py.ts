// The Python the eval-task policies write for a Python session: the same steps, tag lines
// and sub-LM prompts as their JavaScript (eval-sniah.ts, eval-oolong.ts, eval-browse.ts).
import { py, TEXT_EXPR_PY } from './code-py.ts';

export function sniahSearchPy(phrase: string): string {
  return String.raw`
import json, re
hay = ${TEXT_EXPR_PY}
phrase = ${py(phrase)}
hits = [{"at": m.start(), "value": m.group(1)} for m in re.finditer(re.escape(phrase) + r"\D{0,20}?(\d+)", hay, re.I)][:5]
print("regex hits:", len(hits), json.dumps(hits))
candidate = "NONE"
ask = lambda text: "TASK: find-number\nKEY: " + phrase + "\nReply with the number only, or NONE.\nTEXT:\n" + text
if hits:
    read = str(llm_query(ask(hay[max(0, hits[0]["at"] - 300):hits[0]["at"] + 300]))).strip()
    print("sub-LM reading:", read)
    candidate = read if re.fullmatch(r"\d+", read) else hits[0]["value"]
else:
    pieces = [hay[i:i + 400000] for i in range(0, len(hay), 400000)]
    reads = [str(r).strip() for r in llm_query_batched([ask(p) for p in pieces])]
    candidate = next((r for r in reads if re.fullmatch(r"\d+", r)), "NONE")
print("[sniah:candidate]", candidate)
`;
}

export const OOLONG_INSPECT_PY = String.raw`
import json
text = ${TEXT_EXPR_PY}
records = [l for l in text.split("\n") if l.strip()]
print("[oolong:inspect] records=" + str(len(records)) + " chars=" + str(len(text)))
for r in records[:3]:
    print("sample:", json.dumps(r[:160]))
`;

/** Labels every record into `label_of` (None where no sub-LM answered). */
export function oolongLabellingPy(labels: string[]): string {
  return String.raw`
import json, math
labels = ${py(labels)}
def question_of(l):
    i = l.find("Instance: ")
    return l[i + 10:] if i >= 0 else l
n_chunks = max(4, min(256, math.ceil(len(text) / 60000)))
per = max(1, math.ceil(len(records) / n_chunks))
starts = list(range(0, len(records), per))
def prompt_for(s):
    return "TASK: label-questions\nLABELS: " + ", ".join(labels) + "\nClassify each numbered question with exactly one label. Reply with only a JSON object mapping each number to its label.\nITEMS:\n" + "\n".join(str(s + k) + ": " + question_of(l) for k, l in enumerate(records[s:s + per]))
label_of = [None] * len(records)
def take(reply):
    s = str(reply)
    got = json.loads(s[s.index("{"):s.rindex("}") + 1])
    for k, v in got.items():
        label_of[int(k)] = str(v).strip().lower()
failed = []
for i, r in enumerate(llm_query_batched([prompt_for(s) for s in starts])):
    try:
        take(r)
    except Exception:
        failed.append(starts[i])
if failed:
    print("retrying", len(failed), "chunk(s)")
    again = llm_query_batched([prompt_for(s) for s in failed])
    still = []
    for j, r in enumerate(again):
        try:
            take(r)
        except Exception:
            still.append(failed[j])
    failed = still
tally = {}
for l in label_of:
    key = "unlabelled" if l is None else l
    tally[key] = tally.get(key, 0) + 1
print("chunks:", len(starts), "failed:", len(failed), "tally:", json.dumps(tally))
`;
}

export function oolongCountPy(asked: string): string {
  return String.raw`
count = sum(1 for l in label_of if l == ${py(asked)})
print("[oolong:count]", count)
if not failed:
    answer["content"] = str(count)
    answer["ready"] = True
`;
}

export function pairsPy(a: string, b: string): string {
  return String.raw`
import re
with_a = set()
with_b = set()
for i, l in enumerate(records):
    m = re.search(r"User: (\d+)", l)
    if m is None:
        continue
    u = int(m.group(1))
    if label_of[i] == ${py(a)}:
        with_a.add(u)
    if label_of[i] == ${py(b)}:
        with_b.add(u)
pair_set = set()
for u in with_a:
    for v in with_b:
        if u != v:
            pair_set.add(str(u) + "," + str(v) if u < v else str(v) + "," + str(u))
pairs = sorted(pair_set)
print("users with A:", len(with_a), "with B:", len(with_b))
print("[pairs:count]", len(pairs))
print("first pairs:", " ".join(pairs[:5]))
if not failed:
    answer["content"] = "\n".join(pairs)
    answer["ready"] = True
`;
}

export const PAIRS_PARTIAL_PY = 'answer["content"] = "\\n".join(pairs)\nanswer["ready"] = True';

const BROWSE_HELPERS_PY = String.raw`
import json
if isinstance(context, list):
    docs = context
else:
    try:
        docs = json.loads(context)
    except (TypeError, ValueError):
        docs = str(context).split("\n\n")
doc_text = lambda d: d if isinstance(d, str) else (d.get("title") or "") + "\n" + (d.get("text") or "")
doc_id = lambda d, i: (d.get("docid") if isinstance(d, dict) else None) or "doc" + str(i)
search = lambda term: [(i, doc_text(d)) for i, d in enumerate(docs) if term in doc_text(d)][:8]
def ask(question, term):
    hits = search(term)
    print("documents naming", json.dumps(term) + ":", ", ".join(doc_id(docs[i], i) for i, _ in hits) or "none")
    replies = [str(r) for r in rlm_query_batched(["TASK: extract-fact\nQUESTION: " + question + "\nAnswer with the name only, or NONE if the document does not say.\nTEXT:\n" + t for _, t in hits])]
    found = [r.strip() for r in replies if r.strip() not in ("", "NONE") and not r.strip().startswith("Error")]
    print("readers said:", json.dumps([r[:60] for r in replies]))
    return found[0] if found else "NONE"
`;

export function browseInspectPy(): string {
  return `${BROWSE_HELPERS_PY}
print("[browse:inspect] docs=" + str(len(docs)))
for d in docs[:3]:
    print("sample:", json.dumps(doc_text(d)[:160]))`;
}

/** One hop: `ask` a question about `term` and print the result under `tag`. */
export function browseHopPy(variable: string, question: string, term: string): string {
  return `${variable} = ask(${py(question)}, ${py(term)})\nprint("[browse:${variable}]", ${variable})`;
}
