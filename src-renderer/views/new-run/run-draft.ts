// The New run form's fields as one draft, changed only through `draftReducer`, and the
// `session.start` it makes: checked with the protocol's own schema (StartSession), so a
// problem is named in the form before anything is sent.
import {
  DEMO_PROFILE_NAME,
  StartSession,
  type BreakpointKind,
  type ContextSource,
  type EndpointProfile,
  type RunLimitsInput,
} from '../../../src-shared/protocol.ts';
import type { ReplChoice } from '../../lib/repl-language.ts';
import { examplesOf } from '../ExamplesField.tsx';

export const BP_KINDS: BreakpointKind[] = ['before_model_call', 'after_reply', 'after_block', 'on_error', 'on_subcall_start'];

/** `profile`: whatever the profile says (its own prompt, else the built-in one). */
type PromptMode = 'profile' | 'builtin' | 'custom';
export type DemoName = Extract<ContextSource, { kind: 'demo' }>['name'];

/** Every field of the form as typed (numbers as text: the schema checks them). */
export interface RunDraft {
  profile: string;
  model: string;
  subModel: string;
  /** '' : sub-calls on the root profile. */
  subProfile: string;
  repl: ReplChoice;
  promptMode: PromptMode;
  systemPrompt: string;
  finalPatterns: boolean;
  tools: string;
  /** Worked-example logs on the host, one a line, and their budget ('' : the default). */
  examples: string;
  exampleBudget: string;
  ctxKind: ContextSource['kind'];
  demo: DemoName;
  /** The text (or JSON) context, and a context file's path on the host. */
  text: string;
  path: string;
  query: string;
  maxDepth: string;
  maxIterations: string;
  maxBudget: string;
  /** Seconds. */
  maxTimeout: string;
  childLlmModel: 'sub' | 'own';
  breakpoints: BreakpointKind[];
  startPaused: boolean;
}

export const INITIAL_DRAFT: RunDraft = {
  profile: DEMO_PROFILE_NAME,
  model: '',
  subModel: '',
  subProfile: '',
  repl: 'javascript',
  promptMode: 'profile',
  systemPrompt: '',
  finalPatterns: false,
  tools: '',
  examples: '',
  exampleBudget: '',
  ctxKind: 'demo',
  demo: 'recursive',
  text: '',
  path: '',
  query: '',
  maxDepth: '',
  maxIterations: '',
  maxBudget: '',
  maxTimeout: '',
  childLlmModel: 'sub',
  breakpoints: [],
  startPaused: false,
};

export type DraftAction =
  | { type: 'set'; patch: Partial<RunDraft> }
  /** A profile picked: it brings its REPL language, paper-era setting and worked examples; the form can still override them. */
  | { type: 'profile'; name: string; profile: EndpointProfile | null }
  | { type: 'breakpoint'; kind: BreakpointKind };

export function draftReducer(d: RunDraft, a: DraftAction): RunDraft {
  switch (a.type) {
    case 'set':
      return { ...d, ...a.patch };
    case 'profile':
      return {
        ...d,
        profile: a.name,
        repl: a.profile?.repl ?? 'javascript',
        finalPatterns: a.profile?.finalPatterns ?? false,
        examples: (a.profile?.examples ?? []).join('\n'),
        exampleBudget: a.profile?.exampleBudget?.toString() ?? '',
        promptMode: d.promptMode === 'builtin' ? 'profile' : d.promptMode,
      };
    case 'breakpoint':
      return {
        ...d,
        breakpoints: d.breakpoints.includes(a.kind) ? d.breakpoints.filter((x) => x !== a.kind) : [...d.breakpoints, a.kind],
      };
  }
}

function num(v: string): number | undefined {
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) ? n : undefined;
}

/** The first problem zod finds, as "field: message". */
function firstIssue(err: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = err.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.map(String).join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** The `session.start` the draft asks for, checked by the schema the host checks it with, or the first problem. */
export function startOf(d: RunDraft, chosen: EndpointProfile | null): { start: StartSession } | { problem: string } {
  const context: ContextSource =
    d.ctxKind === 'demo'
      ? { kind: 'demo', name: d.demo }
      : d.ctxKind === 'file'
        ? { kind: 'file', path: d.path }
        : d.ctxKind === 'json'
          ? { kind: 'json', json: d.text }
          : { kind: 'text', text: d.text };
  const limits: RunLimitsInput = {};
  const depth = num(d.maxDepth);
  if (depth !== undefined) limits.maxDepth = depth;
  const it = num(d.maxIterations);
  if (it !== undefined) limits.maxIterations = it;
  const budget = num(d.maxBudget);
  if (budget !== undefined) limits.maxBudgetUsd = budget;
  const t = num(d.maxTimeout);
  if (t !== undefined) limits.maxTimeoutMs = t * 1000;
  if (d.childLlmModel !== 'sub') limits.childLlmModel = d.childLlmModel;
  const ex = examplesOf(d.examples, d.exampleBudget);
  if ('error' in ex) return { problem: ex.error };
  const parsed = StartSession.safeParse({
    profile: d.profile,
    context,
    query: d.query.trim() === '' ? null : d.query,
    limits,
    breakpoints: d.breakpoints.map((kind) => ({ kind })),
    startPaused: d.startPaused,
    repl: d.repl,
    finalPatterns: d.finalPatterns,
    ...(d.tools.trim() ? { tools: d.tools.trim() } : {}),
    // The form starts from the profile's examples, so what it shows is what runs: [] is
    // sent only to drop a profile's examples.
    ...(ex.examples.length > 0 || (chosen?.examples?.length ?? 0) > 0 ? { examples: ex.examples } : {}),
    ...(ex.exampleBudget !== undefined ? { exampleBudget: ex.exampleBudget } : {}),
    ...(d.promptMode === 'custom' ? { systemPrompt: d.systemPrompt } : d.promptMode === 'builtin' ? { systemPrompt: null } : {}),
    ...(d.model ? { model: d.model } : {}),
    ...(d.subModel ? { subModel: d.subModel } : {}),
    ...(d.subProfile ? { subProfile: d.subProfile } : {}),
  });
  if (parsed.success) return { start: parsed.data };
  return {
    problem:
      d.promptMode === 'custom' && d.systemPrompt.trim() === ''
        ? 'The custom system prompt is empty: type it or load it from a file.'
        : firstIssue(parsed.error),
  };
}
