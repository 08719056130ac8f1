// The page's carriers check the envelope of what the host sends (the client is tested in
// test/unit/shared/protocol-client.test.ts).
import { describe, expect, it } from 'vitest';
import { parseHostMessage } from '../../../src-renderer/transport/carrier.ts';

describe('parseHostMessage', () => {
  it('ignores malformed host messages', () => {
    expect(parseHostMessage({ kind: 'events', sessionId: 'S', events: [{ type: 'x' }] })).toBeNull();
    expect(parseHostMessage('<script>')).toBeNull();
    expect(parseHostMessage({ kind: 'evil' })).toBeNull();
  });

  it('passes well-formed ones through', () => {
    const reply = { kind: 'reply', id: 3, ok: true, result: { sessions: [] } };
    expect(parseHostMessage(reply)).toBe(reply);
    const events = { kind: 'events', sessionId: 'S', events: [{ type: 'run.started', seq: 0, runId: 'r' }] };
    expect(parseHostMessage(events)).toBe(events);
  });
});
