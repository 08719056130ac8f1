import { readFileSync } from 'node:fs';
import { act } from '@testing-library/react';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { Services } from '../../../src-renderer/app/services.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import type { Carrier } from '../../../src-renderer/transport/carrier.ts';
import type { ClientMessage, EndpointProfile, ErrorCode, Replies, SessionSummary } from '../../../src-shared/protocol.ts';
import { MemoryCarrier } from '../../support/memory-carrier.ts';
import type { OutgoingMessage } from '../../../src-shared/protocol-client.ts';

import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

export const FIXTURES = REFERENCE_FIXTURES;

export function fixtureEvents(name: string): TrajectoryEvent[] {
  return readRlmPythonText(readFileSync(`${FIXTURES}/${name}`, 'utf8')).events;
}

/** A store whose frames run only when the test says so. */
export function manualStore(msPerClockRead = 0) {
  const frames: (() => void)[] = [];
  let now = 0;
  const store = createStudioStore({ request: (cb) => frames.push(cb), now: () => (now += msPerClockRead) });
  return {
    store,
    runFrames(n = 1000): number {
      let ran = 0;
      while (frames.length > 0 && ran < n) {
        (frames.shift() as () => void)();
        ran++;
      }
      return ran;
    },
    advance(ms: number): void {
      now += ms;
    },
    frames,
  };
}

export function servicesWith(events: TrajectoryEvent[], title = 'fixture', carrier: Carrier | null = null) {
  const store = createStudioStore();
  const svc = new Services(store, carrier, () => null);
  store.getState().addLocalSession('s1', title);
  store.getState().ingestEvents('s1', events);
  store.getState().flushEvents();
  return { store, svc };
}

/** Services over `carrier`, connected, with the host's `summaries` listed. */
export function connectedServices(carrier: MemoryCarrier, ...summaries: SessionSummary[]) {
  const store = createStudioStore();
  const svc = new Services(store, carrier, () => null);
  act(() => {
    carrier.setState('open');
    for (const s of summaries) store.getState().upsertSummary(s);
  });
  return { store, svc };
}

export type HostCommand = ClientMessage['command'];

/**
 * Plays the host for a page under test: records what is sent, answers `hello` and the lists
 * the page asks for on connecting (from `sessions` and `profiles`), and leaves every other
 * command to `answer`, which a test's host overrides (it may answer the lists too).
 */
export class ScriptedHost extends MemoryCarrier {
  sessions: SessionSummary[] = [];
  profiles: EndpointProfile[] = [];

  override send(m: OutgoingMessage): void {
    super.send(m);
    const c = m.command as HostCommand;
    if (this.answer(c, m.id)) return;
    if (c.type === 'hello') this.replyTo(m.id, { protocol: 1, host: 'test' });
    else if (c.type === 'runs.recent') this.replyTo(m.id, { runs: [] });
    else if (c.type === 'sessions.list') this.replyTo(m.id, { sessions: this.sessions });
    else if (c.type === 'profiles.list') this.replyTo(m.id, { profiles: this.profiles });
  }

  /** Answers command `c` (sent as message `id`) and says so; false: not this host's to answer. */
  protected answer(_c: HostCommand, _id: number): boolean {
    return false;
  }

  protected replyTo(id: number, result: Replies[keyof Replies]): void {
    queueMicrotask(() => this.deliver({ kind: 'reply', id, ok: true, result }));
  }

  protected refuse(id: number, message: string, code: ErrorCode = 'bad_request'): void {
    queueMicrotask(() => this.deliver({ kind: 'reply', id, ok: false, error: { code, message } }));
  }
}

/** A session as the host lists it: by default a saved log opened read-only, with `patch` over it. */
export function hostSummary(sessionId: string, patch: Partial<SessionSummary> = {}): SessionSummary {
  return {
    sessionId,
    title: sessionId,
    status: 'saved',
    logFile: null,
    format: 'native',
    readOnly: true,
    createdAt: '',
    model: null,
    pause: null,
    forkOf: null,
    eventCount: 0,
    ...patch,
  };
}
