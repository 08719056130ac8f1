// Ruff over the sandbox's Python runtime, from Node: Ruff's WebAssembly build (no Python
// toolchain needed on the machine). Prints each finding as path:line:column code message and
// exits 1 when there is any. Usage: node bin/lint-python.ts [FILE.py ...]
import { PositionEncoding, Workspace } from '@astral-sh/ruff-wasm-nodejs';
import { readFileSync } from 'node:fs';

const FILES = process.argv.length > 2 ? process.argv.slice(2) : ['src-main/sandbox/python/runtime.py'];

// Ruff's defaults (pyflakes, the E4/E7/E9 errors) and pycodestyle's warnings, import order,
// bugbear, blind excepts, pyupgrade to the oldest Python we run (Pyodide's is newer), simplify
// and Ruff's own rules.
const SETTINGS = {
  'line-length': 120,
  'target-version': 'py310',
  lint: { select: ['E', 'F', 'W', 'I', 'B', 'BLE', 'UP', 'SIM', 'RUF'] },
};

interface Finding {
  code: string | null;
  message: string;
  start_location: { row: number; column: number };
}

const workspace = new Workspace(SETTINGS, PositionEncoding.Utf16);
let count = 0;
for (const file of FILES) {
  for (const d of workspace.check(readFileSync(file, 'utf8')) as Finding[]) {
    count++;
    console.log(`${file}:${d.start_location.row}:${d.start_location.column} ${d.code ?? ''} ${d.message}`);
  }
}
if (count > 0) {
  console.log(`ruff ${Workspace.version()}: ${count} finding(s)`);
  process.exitCode = 1;
}
