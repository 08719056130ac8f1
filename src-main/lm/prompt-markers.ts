// The fixed texts of the RLM protocol that every party talking to a model recognises: the
// engine writes them (engine/prompts.ts), the replay client tells a compaction or final-answer
// request by them, and mock-llm's policies classify requests by them. Change them together.

export const MARKERS = {
  system: 'You are a Recursive Language Model',
  /** Only the Python system prompt says this; mock-llm writes Python when it sees it. */
  pythonRepl: 'Python REPL',
  /** Starts the metadata message's description (after the Query line, if any). */
  metadata: 'Your context is ',
  query: 'Query: ',
  turn: /^Turn (\d+)\/(\d+):/m,
  replOutput: 'REPL output',
  finalAnswerRequest: 'Give your final answer now',
  compactionRequest: 'Summarise the work so far',
} as const;

export const FINAL_ANSWER_REQUEST = `${MARKERS.finalAnswerRequest}: you have used all your turns. Answer the query with what you have found so far, in plain text, without code.`;
export const COMPACTION_REQUEST = `${MARKERS.compactionRequest}: the conversation is getting too long for your window. Write 1–3 paragraphs covering what you have done, what remains, every concrete intermediate result exactly (numbers, names, variable names), and your next action. The REPL keeps all its variables.`;
