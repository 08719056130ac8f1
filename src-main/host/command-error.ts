// A refused command: its code and message go back to the client in the reply.
import type { ErrorCode } from '../../src-shared/protocol.ts';

export class CommandError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
