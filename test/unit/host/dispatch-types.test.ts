// The host's dispatch is a table typed per command: these checks are compile-time (the suite's
// typecheck runs over test/), and the runtime part only keeps Vitest from reporting an empty file.
import { describe, expect, it } from 'vitest';
import type { Handlers } from '../../../src-main/host/dispatch.ts';
import type { Replies } from '../../../src-shared/protocol.ts';

type HandlerReply<K extends keyof Handlers> = Awaited<ReturnType<Handlers[K]>>;

describe('the dispatch table', () => {
  it('gives each command its own reply type', () => {
    const listed: HandlerReply<'sessions.list'> = { sessions: [] };
    // @ts-expect-error a `profiles.list` reply is not a `sessions.list` reply
    const wrong: HandlerReply<'sessions.list'> = { profiles: [] };
    const unwatch: Replies['runs.unwatch'] = {};
    const handler: Handlers['runs.unwatch'] = () => unwatch;
    // @ts-expect-error a handler that answers with another command's reply does not fit its slot
    const misplaced: Handlers['runs.unwatch'] = () => listed;
    expect([listed, wrong, handler, misplaced].length).toBe(4);
  });

  it('has a handler for every command type', () => {
    type Missing = Exclude<keyof Replies, keyof Handlers>;
    const none: [Missing] extends [never] ? true : false = true;
    expect(none).toBe(true);
  });
});
