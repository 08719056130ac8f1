/** Bad input from the user: printed as one line, exit code 2, no stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}
