// The host's message on a session (lines it could not read in a log sent to it, why a run
// failed) is shown beside the session's status; it was sent but never displayed, so a log
// opened in the host with a corrupted line silently lacked an iteration.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Controls } from '../../../src-renderer/views/Controls.tsx';
import type { SessionSummary } from '../../../src-shared/protocol.ts';
import { connectedServices, hostSummary, ScriptedHost } from './helpers.ts';

function mount(summary: SessionSummary): void {
  const { svc } = connectedServices(new ScriptedHost(), summary);
  render(
    <ServicesProvider services={svc}>
      <Controls sessionId={summary.sessionId} />
    </ServicesProvider>,
  );
}

describe('the host message on a session', () => {
  it('shows the problems the host met reading a log sent to it', () => {
    const message = '1 problem(s) reading the log; first: line 4: not valid JSON; line skipped';
    mount(hostSummary('h1', { message }));
    expect(screen.getByTestId('session-message').textContent).toBe(message);
    expect(screen.getByTestId('session-message').className).toBe('warn');
  });

  it('shows why a session failed as an error', () => {
    mount(hostSummary('h2', { status: 'failed', readOnly: false, message: 'the worker crashed: out of memory' }));
    expect(screen.getByTestId('session-message').className).toBe('error');
  });

  it('shows a note on a finished fork as a note', () => {
    mount(hostSummary('h4', { status: 'finished', readOnly: false, message: 'replayed 2 recorded calls, 3 live' }));
    expect(screen.getByTestId('session-message').className).toBe('muted');
  });

  it('shows nothing when the host has nothing to say', () => {
    mount(hostSummary('h3', { message: null }));
    expect(screen.queryByTestId('session-message')).toBeNull();
  });
});
