// The engine's public surface: configure, run, listen to events.
export type { RlmConfig, ConversationSettings, ToolSpec, SandboxLimits } from './config.ts';
export { RLM_DEFAULTS, validateConfig } from './config.ts';
export type { EngineGates, GateRun, ReplyEdit } from './gates.ts';
export type { RunOutcome } from './run.ts';
export { RlmConversation, type ConversationOptions, type CompletionOptions, type ReplFactory } from './conversation.ts';
export { EventRecorder, type EventListener } from './event-recorder.ts';
export {
  DEFAULT_EXAMPLE_BUDGET,
  renderWorkedExample,
  workedExamplesSection,
  WorkedExampleError,
  type WorkedExample,
} from './worked-example.ts';
