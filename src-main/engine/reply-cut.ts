// Model-facing text: what the model is told after a reply the output-token cap cut inside a
// ```repl block (that block was not run). Our words; a prompt pack may replace them.

export function replyCutNotice(): string {
  return 'Your last reply was cut off by the output-token limit before its final ```repl block was closed, so that block was not run. Write shorter replies, and close every ```repl block.';
}
