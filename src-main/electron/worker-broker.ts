// The main process's half of the desktop host's requests (see ../host/broker-protocol.ts):
// it starts session workers as utility processes (the only Node processes a packaged app
// with the runAsNode fuse off can start), wires each to the host with a MessageChannel, and
// stores keys with safeStorage. No Electron import: main.ts passes the Electron pieces in,
// and tests pass stand-ins.
import { BrokerToHost, HostToBroker } from '../host/broker-protocol.ts';

export interface UtilityChildLike {
  readonly pid: number | undefined;
  postMessage(message: unknown, transfer?: unknown[]): void;
  on(event: 'exit', listener: (code: number) => void): unknown;
  readonly stderr: { setEncoding?(e: 'utf8'): unknown; on(event: 'data', listener: (d: Buffer | string) => void): unknown } | null;
  kill(): boolean;
}

export interface BrokerDeps {
  /** utilityProcess.fork(workerEntry, [], { execArgv: ['--no-node-snapshot'], stdio: 'pipe', … }) */
  forkWorker(): UtilityChildLike;
  /** new MessageChannelMain() */
  channel(): { port1: unknown; port2: unknown };
  /** hostChild.postMessage(m, ports) */
  toHost(message: BrokerToHost, transfer?: unknown[]): void;
  /** KeychainFile.set; throws with a reason. */
  setKey(ref: string, key: string | null): void;
}

export class WorkerBroker {
  private readonly deps: BrokerDeps;
  private readonly workers = new Map<number, UtilityChildLike>();

  constructor(deps: BrokerDeps) {
    this.deps = deps;
  }

  /** Handles one message from the host process; false when it is not for the broker. */
  handle(raw: unknown): boolean {
    const parsed = HostToBroker.safeParse(raw);
    if (!parsed.success) return false;
    const m = parsed.data;
    switch (m.t) {
      case 'worker.spawn':
        this.spawn(m.id);
        return true;
      case 'worker.kill':
        this.workers.get(m.id)?.kill();
        return true;
      case 'keys.set':
        try {
          this.deps.setKey(m.ref, m.key);
          this.deps.toHost({ t: 'keys.result', req: m.req, ok: true });
        } catch (err) {
          this.deps.toHost({ t: 'keys.result', req: m.req, ok: false, error: err instanceof Error ? err.message : String(err) });
        }
        return true;
    }
  }

  private spawn(id: number): void {
    let child: UtilityChildLike;
    try {
      child = this.deps.forkWorker();
    } catch (err) {
      this.deps.toHost({ t: 'worker.exit', id, how: `could not start: ${err instanceof Error ? err.message : String(err)}` });
      return;
    }
    this.workers.set(id, child);
    const { port1, port2 } = this.deps.channel();
    // The worker waits for its port as its first parentPort message (worker-channel.ts).
    child.postMessage({ t: 'port' }, [port2]);
    this.deps.toHost({ t: 'worker.port', id, pid: child.pid }, [port1]);
    child.stderr?.setEncoding?.('utf8');
    child.stderr?.on('data', (d) => this.deps.toHost({ t: 'worker.stderr', id, text: String(d) }));
    child.on('exit', (code) => {
      this.workers.delete(id);
      // utilityProcess reports a signal death as a code; say what we know.
      this.deps.toHost({ t: 'worker.exit', id, how: `exited with code ${code}` });
    });
  }

  /** The host process died: its workers have nobody to talk to. */
  killAll(): void {
    for (const w of this.workers.values()) w.kill();
    this.workers.clear();
  }
}
