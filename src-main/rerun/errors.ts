/** Bad input to a re-execution (the log, the context, the language): the message names it. */
export class RerunInputError extends Error {
  override name = 'RerunInputError';
}
