// A profile as the editor holds it (text fields as typed), and turning one into the profile
// to save: each field checked by the schema the host checks with (src-shared/protocol.ts), so
// the editor's rules and messages cannot drift from it.
import { blockedPortText, fetchBlockedPort } from '../../../src-shared/endpoint-url.ts';
import type { ZodNumber, ZodOptional } from 'zod';
import { DEMO_PROFILE_NAME, EndpointProfile, SamplingInput } from '../../../src-shared/protocol.ts';
import type { ReplChoice } from '../../lib/repl-language.ts';
import { examplesOf } from '../ExamplesField.tsx';

export interface PriceRow {
  model: string;
  input: string;
  output: string;
}

/** The editor's text fields; `original` is the saved name being edited (null: a new profile). */
export interface ProfileDraft {
  original: string | null;
  name: string;
  baseUrl: string;
  model: string;
  subModel: string;
  apiKeyRef: string;
  prices: PriceRow[];
  repl: ReplChoice;
  /** '' : the built-in prompt. */
  systemPrompt: string;
  /** Its sessions accept paper-era FINAL(...) / FINAL_VAR(name) unless the run says otherwise. */
  finalPatterns: boolean;
  /** Sampling settings as typed; '' : the endpoint's default. */
  sampling: SamplingDraft;
  /** Worked-example logs on the host, one a line. */
  examples: string;
  /** '' : the default budget. */
  exampleBudget: string;
  /** '' : our pack for the run's REPL; else one of ours by name, or a pack file on the host (as `--prompts`). */
  prompts: string;
  /** '' : the model table's window; else tokens (as `--context-window`). */
  contextWindow: string;
}

export interface SamplingDraft {
  temperature: string;
  topP: string;
  seed: string;
  maxOutputTokens: string;
}

const NO_SAMPLING: SamplingDraft = { temperature: '', topP: '', seed: '', maxOutputTokens: '' };

const DRAFT_FIELDS = [
  'name',
  'baseUrl',
  'model',
  'apiKeyRef',
  'prices',
  'systemPrompt',
  'sampling',
  'examples',
  'prompts',
  'contextWindow',
] as const;
export type DraftErrors = Partial<Record<(typeof DRAFT_FIELDS)[number], string>>;

/** A new profile's draft: every field empty or at its default. */
export const EMPTY_DRAFT: ProfileDraft = {
  original: null,
  name: '',
  baseUrl: '',
  model: '',
  subModel: '',
  apiKeyRef: '',
  prices: [],
  repl: 'javascript',
  systemPrompt: '',
  finalPatterns: false,
  sampling: NO_SAMPLING,
  examples: '',
  exampleBudget: '',
  prompts: '',
  contextWindow: '',
};

export function profileDraftOf(p: EndpointProfile): ProfileDraft {
  return {
    original: p.name,
    name: p.name,
    baseUrl: p.baseUrl,
    model: p.model,
    subModel: p.subModel ?? '',
    apiKeyRef: p.apiKeyRef ?? '',
    prices: Object.entries(p.prices).map(([model, v]) => ({ model, input: String(v.inputPerMTok), output: String(v.outputPerMTok) })),
    repl: p.repl ?? 'javascript',
    systemPrompt: p.systemPrompt ?? '',
    finalPatterns: p.finalPatterns ?? false,
    sampling: {
      temperature: p.sampling?.temperature?.toString() ?? '',
      topP: p.sampling?.topP?.toString() ?? '',
      seed: p.sampling?.seed?.toString() ?? '',
      maxOutputTokens: p.sampling?.maxOutputTokens?.toString() ?? '',
    },
    examples: (p.examples ?? []).join('\n'),
    exampleBudget: p.exampleBudget?.toString() ?? '',
    prompts: p.prompts ?? '',
    contextWindow: p.contextWindow?.toString() ?? '',
  };
}

export const SAMPLING_LABELS: Record<keyof SamplingDraft, string> = {
  temperature: 'Temperature',
  topP: 'Top p',
  seed: 'Seed',
  maxOutputTokens: 'Max output tokens',
};

/** A typed number checked by `schema` (a field of the host's schema): the number, or what is wrong in the schema's own words. */
function checkedNumber(label: string, text: string, schema: ZodOptional<ZodNumber>): { value: number } | { error: string } {
  const n = Number(text);
  if (text !== '' && schema.safeParse(n).success) return { value: n };
  return { error: `${label} must be ${schema.unwrap().description ?? 'a valid number'}, got "${text}".` };
}

/** The sampling settings typed, or what is wrong with the first bad one. */
function samplingOf(d: SamplingDraft): { sampling: SamplingInput } | { error: string } {
  const out: SamplingInput = {};
  for (const key of Object.keys(SAMPLING_LABELS) as (keyof SamplingDraft)[]) {
    const text = d[key].trim();
    if (text === '') continue;
    const r = checkedNumber(SAMPLING_LABELS[key], text, SamplingInput.shape[key]);
    if ('error' in r) return r;
    out[key] = r.value;
  }
  return { sampling: out };
}

function price(v: string): number | null {
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) && n >= 0 ? n : null;
}

/** Checks a draft and builds the profile to save, or says what is wrong with each field. */
export function validateDraft(d: ProfileDraft, existing: readonly string[]): { profile: EndpointProfile } | { errors: DraftErrors } {
  const errors: DraftErrors = {};
  const name = d.name.trim();
  if (name === '') errors.name = 'Name is required.';
  else if (name.length > 100) errors.name = 'Name is at most 100 characters.';
  else if (name === DEMO_PROFILE_NAME) errors.name = `"${DEMO_PROFILE_NAME}" is the built-in profile; pick another name.`;
  else if (d.original === null && existing.includes(name)) errors.name = `A profile named "${name}" exists; edit it instead.`;
  const baseUrl = d.baseUrl.trim();
  let url: URL | null;
  try {
    url = new URL(baseUrl);
  } catch {
    url = null;
  }
  // The host calls it with the OpenAI client: only http(s) makes sense.
  const blockedPort = url === null ? null : fetchBlockedPort(url);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    errors.baseUrl = 'Base URL must be an http:// or https:// URL, e.g. https://api.openai.com/v1.';
  else if (blockedPort !== null) errors.baseUrl = `Base URL: ${blockedPortText(blockedPort)}.`;
  if (d.model.trim() === '') errors.model = 'Model is required.';
  const ref = d.apiKeyRef.trim();
  if (ref !== '' && !/^[A-Za-z_][A-Za-z0-9_]{0,199}$/.test(ref))
    errors.apiKeyRef = 'An environment variable name: letters, digits and _, not starting with a digit.';
  const prices: EndpointProfile['prices'] = {};
  for (const [i, r] of d.prices.entries()) {
    const m = r.model.trim();
    const input = price(r.input);
    const output = price(r.output);
    if (m === '' && r.input.trim() === '' && r.output.trim() === '') continue; // an untouched row
    if (m === '') errors.prices = `Price ${i + 1}: name the model.`;
    else if (Object.hasOwn(prices, m)) errors.prices = `Price ${i + 1}: "${m}" is priced twice.`;
    else if (input === null || output === null) errors.prices = `Price ${i + 1}: input and output are USD per million tokens, numbers ≥ 0.`;
    else prices[m] = { inputPerMTok: input, outputPerMTok: output };
    if (errors.prices) break;
  }
  const sampling = samplingOf(d.sampling);
  if ('error' in sampling) errors.sampling = sampling.error;
  const examples = examplesOf(d.examples, d.exampleBudget);
  if ('error' in examples) errors.examples = examples.error;
  const windowText = d.contextWindow.trim();
  const ctxWindow = windowText === '' ? null : checkedNumber('Context window', windowText, EndpointProfile.shape.contextWindow);
  if (ctxWindow && 'error' in ctxWindow) errors.contextWindow = ctxWindow.error;
  if (Object.keys(errors).length > 0 || 'error' in sampling || 'error' in examples || (ctxWindow && 'error' in ctxWindow))
    return { errors };
  const profile: EndpointProfile = {
    name,
    baseUrl,
    model: d.model.trim(),
    subModel: d.subModel.trim() === '' ? null : d.subModel.trim(),
    apiKeyRef: ref === '' ? null : ref,
    prices,
  };
  // JavaScript is what an absent language means: left out, as in profiles saved before Python.
  if (d.repl !== 'javascript') profile.repl = d.repl;
  if (d.systemPrompt.trim() !== '') profile.systemPrompt = d.systemPrompt;
  // Off is what an absent setting means: left out, as in profiles saved before it existed.
  if (d.finalPatterns) profile.finalPatterns = true;
  if (Object.keys(sampling.sampling).length > 0) profile.sampling = sampling.sampling;
  if (examples.examples.length > 0) profile.examples = examples.examples;
  if (examples.exampleBudget !== undefined) profile.exampleBudget = examples.exampleBudget;
  if (d.prompts.trim() !== '') profile.prompts = d.prompts.trim();
  if (ctxWindow) profile.contextWindow = ctxWindow.value;
  // The host checks with this same schema; anything the checks above missed is named here.
  const checked = EndpointProfile.safeParse(profile);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const at = String(issue?.path[0] ?? 'name');
    const field = DRAFT_FIELDS.find((f) => f === at) ?? 'name';
    return { errors: { [field]: `${at}: ${issue?.message ?? 'invalid'}` } };
  }
  return { profile: checked.data };
}

export function samplingText(s: SamplingInput | undefined): string {
  if (!s) return '—';
  const parts = (Object.keys(SAMPLING_LABELS) as (keyof SamplingDraft)[])
    .filter((k) => s[k] !== undefined)
    .map((k) => `${SAMPLING_LABELS[k].toLowerCase()} ${s[k]}`);
  return parts.length > 0 ? parts.join(', ') : '—';
}
