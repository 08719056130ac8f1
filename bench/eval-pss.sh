#!/usr/bin/env bash
# Memory per concurrent session of a whole evaluation: `rlm-studio eval --parallel N` over N
# generated S-NIAH 8K tasks against mock-llm at 4 s per call (LATENCY_MS; so every session is alive at once),
# the peak proportional set size of the evaluation's process tree (sampled every 0.5 s) ÷ N.
# Usage: bench/eval-pss.sh javascript|python|cpython [N] [extra eval options…]
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
repl=${1:?usage: bench/eval-pss.sh javascript|python|cpython [N]}
n=${2:-64}
shift $(($# < 2 ? $# : 2))
out="$(mktemp -d "${TMPDIR:-/tmp}/rlm-eval-pss-XXXXXX")"
cli="$root/bin/rlm-studio"
"$cli" eval-gen --kind sniah --sizes 2^13 --count "$n" -o "$out/ds.jsonl" >/dev/null 2>&1
"$cli" mock-llm --port 0 --latency-ms "${LATENCY_MS:-4000}" >"$out/mock.txt" 2>&1 &
mock=$!
trap 'kill $mock 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q listening "$out/mock.txt" && break; sleep 0.2; done
url=$(grep -o 'http://[^ ]*' "$out/mock.txt" | head -1)
"$cli" eval "$out/ds.jsonl" --base-url "$url" --model mock-root --out "$out/run" --parallel "$n" --repl "$repl" --no-progress "$@" >"$out/eval.txt" 2>&1 &
eval_pid=$!
tree() { echo "$1"; for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree "$c"; done; }
peak=0
while kill -0 "$eval_pid" 2>/dev/null; do
  sum=0
  for p in $(tree "$eval_pid"); do
    v=$(awk '/^Pss:/{print $2}' /proc/"$p"/smaps_rollup 2>/dev/null || true)
    sum=$((sum + ${v:-0}))
  done
  [ "$sum" -gt "$peak" ] && peak=$sum
  sleep 0.5
done
wait "$eval_pid" || true
# How many sessions were alive at once with their REPL up (first block ended, root not yet ended),
# from the logs: fewer than N means the peak undercounts (slow starts: raise LATENCY_MS).
alive=$(node -e '
  const fs = require("node:fs"), dir = process.argv[1], ev = [];
  for (const f of fs.readdirSync(dir)) {
    const lines = fs.readFileSync(dir + "/" + f, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const up = lines.find((e) => e.type === "block.end"), end = lines.findLast((e) => e.type === "run.end" && e.depth === 0);
    if (up && end) ev.push([Date.parse(up.ts), 1], [Date.parse(end.ts), -1]);
  }
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let c = 0, m = 0;
  for (const [, d] of ev) m = Math.max(m, (c += d));
  console.log(m);
' "$out/run/logs" 2>/dev/null || echo "?")
echo "$repl: $n sessions ($alive alive at once), peak PSS $((peak / 1024)) MB, $((peak / 1024 / n)) MB per session; $(tail -1 "$out/eval.txt")"
[ -n "${KEEP:-}" ] && echo "kept $out" || rm -rf "$out"
