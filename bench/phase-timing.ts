// Where one whole-process `run` spends its time, case by case (the cases of cli-vs-reference.ts,
// the same scripted mock at 300 ms per call): `./bin/rlm-studio run … --json` with
// RLM_STUDIO_TIMING=1 (cli/timing-report.ts), its marks printed with the mock's view of each
// request. Run: node --no-node-snapshot bench/phase-timing.ts [--case aggregation] [--runs 3] [-- extra run flags]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureCliBuilt } from '../src-main/cli/cli-build.ts';
import { cases, timedMock } from './cli-vs-reference.ts';
import { log, root } from './lib.ts';

const { values, positionals } = parseArgs({
  options: { case: { type: 'string', default: '' }, runs: { type: 'string', default: '2' } },
  allowPositionals: true,
});
await ensureCliBuilt();
const work = mkdtempSync(join(tmpdir(), 'rlm-phase-timing-'));
try {
  for (const c of cases(work).filter((x) => x.name.includes(values.case))) {
    const { mock, arrivals } = await timedMock(c.rules);
    try {
      for (let i = 0; i < Number(values.runs); i++) {
        arrivals.length = 0;
        const args = [
          'run',
          '--context',
          c.file,
          '--query',
          c.query,
          '--base-url',
          mock.url,
          '--model',
          'mock-root',
          '--json',
          ...positionals,
        ];
        const t0 = performance.now();
        const { stderr, wallMs } = await new Promise<{ stderr: string; wallMs: number }>((resolve, reject) => {
          const child = spawn(join(root, 'bin/rlm-studio'), args, {
            env: { ...process.env, RLM_STUDIO_TIMING: '1' },
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let err = '';
          child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
          child.on('error', reject);
          child.on('close', () => resolve({ stderr: err, wallMs: performance.now() - t0 }));
        });
        const seen = arrivals.map((a) => `${(a.at - t0).toFixed(0)} ${a.kind}`).join(', ');
        log(`${c.name}, run ${i + 1}: ${wallMs.toFixed(0)} ms spawn to exit; requests at (ms since spawn): ${seen}\n${stderr}`);
      }
    } finally {
      await mock.close();
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
