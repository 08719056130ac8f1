// Line encoding of the native `*.rlm.jsonl` format: a header line, then one event per line.
import {
  EVENT_SCHEMA_VERSION,
  NATIVE_FORMAT,
  type LogHeader,
  type SessionId,
  type TrajectoryEvent,
} from '../events.ts';

export function makeHeader(sessionId: SessionId, createdAt: Date, forkOf?: LogHeader['forkOf']): LogHeader {
  const header: LogHeader = { format: NATIVE_FORMAT, version: EVENT_SCHEMA_VERSION, sessionId, createdAt: createdAt.toISOString() };
  if (forkOf) header.forkOf = forkOf;
  return header;
}

export function encodeLine(value: LogHeader | TrajectoryEvent): string {
  return `${JSON.stringify(value)}\n`;
}
