// Line encoding of the native `*.rlm.jsonl` format: a header line, then one event per line.
import { EVENT_SCHEMA_VERSION, NATIVE_FORMAT, type LogHeader, type ReplLanguage, type SessionId, type TrajectoryEvent } from '../events.ts';

export function makeHeader(sessionId: SessionId, createdAt: Date, forkOf?: LogHeader['forkOf'], repl?: ReplLanguage): LogHeader {
  const header: LogHeader = { format: NATIVE_FORMAT, version: EVENT_SCHEMA_VERSION, sessionId, createdAt: createdAt.toISOString() };
  if (repl) header.repl = repl;
  if (forkOf) header.forkOf = forkOf;
  return header;
}

export function encodeLine(value: LogHeader | TrajectoryEvent): string {
  return `${JSON.stringify(value)}\n`;
}
