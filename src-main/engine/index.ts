// The engine's public surface: configure, run, listen to events.
export type { RlmConfig, SessionSettings, ToolSpec, SandboxLimits } from './config.ts';
export { DEFAULTS, validateConfig } from './config.ts';
export type { EngineGates, GateRun, ReplyEdit } from './gates.ts';
export type { RunOutcome } from './run.ts';
export { RlmSession, type ConversationOptions, type CompletionOptions, type ReplFactory } from './session.ts';
export { EventRecorder, type EventListener } from './event-recorder.ts';
export {
  DEFAULT_EXAMPLE_BUDGET,
  renderWorkedExample,
  workedExamplesSection,
  WorkedExampleError,
  type WorkedExample,
} from './worked-example.ts';
