// Python sessions in host workers: once one has started, spare workers are told to start a
// Python interpreter as they boot, so the next Python session takes a warm one; a host that
// only ran JavaScript sessions never asks for one.
import { describe, expect, it } from 'vitest';
import { forkLauncher, type WorkerLauncher } from '../../../src-main/host/worker-launcher.ts';
import type { ToWorker } from '../../../src-main/host/worker-protocol.ts';
import { connectInProcess, demoStart, hostPerTest } from './helpers.ts';

/** The real launcher, recording what the host sends to each worker. */
function recordingLauncher(): WorkerLauncher & { sent: ToWorker['t'][][] } {
  const inner = forkLauncher();
  const sent: ToWorker['t'][][] = [];
  return {
    sent,
    launch() {
      const handle = inner.launch();
      const mine: ToWorker['t'][] = [];
      sent.push(mine);
      const send = handle.send.bind(handle);
      handle.send = (m: ToWorker) => {
        mine.push(m.t);
        send(m);
      };
      return handle;
    },
  };
}

const newHost = hostPerTest();
describe('warm Python interpreters in spare workers', () => {
  it('warms the spares after a Python session, and the next Python session runs on one', { timeout: 60_000 }, async () => {
    const launcher = recordingLauncher();
    const host = newHost({ workerLauncher: launcher });
    const c = connectInProcess(host);
    const first = await c.call('session.start', { params: { ...demoStart('needle').params, repl: 'python' } });
    expect((await c.status(first.session.sessionId, 'finished', 'failed')).status).toBe('finished');
    await c.until(() => (launcher.sent.some((m) => m[0] === 'warm') ? true : null), 'a spare told to warm Python');
    const second = await c.call('session.start', { params: { ...demoStart('aggregate').params, repl: 'python' } });
    const done = await c.status(second.session.sessionId, 'finished', 'failed');
    expect(done.status, done.message ?? '').toBe('finished');
    // The second session's worker was a spare warmed before its start.
    expect(launcher.sent.some((m) => m[0] === 'warm' && m[1] === 'start')).toBe(true);
  });

  it('never warms Python for JavaScript sessions', { timeout: 60_000 }, async () => {
    const launcher = recordingLauncher();
    const host = newHost({ workerLauncher: launcher });
    const c = connectInProcess(host);
    for (const name of ['needle', 'aggregate'] as const) {
      const { session } = await c.call('session.start', demoStart(name));
      expect((await c.status(session.sessionId, 'finished', 'failed')).status).toBe('finished');
    }
    expect(launcher.sent.flat()).not.toContain('warm');
  });
});
