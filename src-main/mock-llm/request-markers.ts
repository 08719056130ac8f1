// How mock-llm recognises the parts of an RLM request: by our packs' fixed texts (the default,
// lm/prompt-markers.ts), or by the texts of the prompt pack the engine was given (`--prompts`
// on mock-llm too), so a run with any pack, the reference's or a test's, can be driven.
import type { ReplLanguage } from '../../src-shared/events.ts';
import { MARKERS } from '../lm/prompt-markers.ts';
import type { PromptPack } from '../lm/prompt-pack.ts';

/** A chat message as it arrives (policy.ts's MockMessage). */
interface MockMessage {
  role: string;
  content: string;
}

export interface RequestMarkers {
  /** The type word of a metadata message (group 1), found anywhere in it. */
  metadataType: RegExp;
  /** The system prompt of an RLM run (without a metadata message to go by). */
  isRlmSystem(system: string): boolean;
  language(system: string, metadata: string): ReplLanguage;
  /** The last message asks for the final answer, or for a summary. */
  isFinalRequest(messages: MockMessage[]): boolean;
  isCompactionRequest(messages: MockMessage[]): boolean;
  /** The query a metadata message carries, or null. */
  findQuery(text: string): string | null;
  /** "Turn i/N": the first two groups that took part are i and N. */
  turn: RegExp;
  isReplOutput(text: string): boolean;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PYTHON_TYPES = new Set(['str', 'list', 'dict']);

/** Our packs' texts, as every party recognised them before packs. */
export const DEFAULT_MARKERS: RequestMarkers = {
  metadataType: new RegExp(`(?:^|\n)${MARKERS.metadata}an? (str|list|dict|string|array|object) of `),
  isRlmSystem: (system) => system.includes(MARKERS.system),
  language(system, metadata) {
    const m = this.metadataType.exec(metadata);
    if (m) return PYTHON_TYPES.has(m[1]!) ? 'python' : 'javascript';
    return system.includes(MARKERS.pythonRepl) ? 'python' : 'javascript';
  },
  isFinalRequest: (messages) => lastUser(messages).includes(MARKERS.finalAnswerRequest),
  isCompactionRequest: (messages) => lastUser(messages).includes(MARKERS.compactionRequest),
  findQuery(text) {
    const at = text.startsWith(MARKERS.query) ? 0 : text.indexOf(`\n${MARKERS.query}`);
    if (at < 0) return null;
    const start = at === 0 ? MARKERS.query.length : at + 1 + MARKERS.query.length;
    const end = text.indexOf('\n', start);
    return (end < 0 ? text.slice(start) : text.slice(start, end)).trim();
  },
  turn: MARKERS.turn,
  isReplOutput: (text) => text.includes(MARKERS.replOutput),
};

function lastUser(messages: MockMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messages[i]!.content;
  return '';
}

/** The literal text of a template up to its first placeholder, and after a given one up to the next. */
function before(template: string, name: string): string {
  const at = template.indexOf(`{${name}`);
  return at < 0 ? template : template.slice(0, at);
}
function after(template: string, name: string): string {
  const at = template.indexOf(`{${name}`);
  if (at < 0) return '';
  const rest = template.slice(template.indexOf('}', at) + 1);
  const next = rest.search(/\{[a-z][a-z_]*(?:\|[^|{}]*\|[^|{}]*)?\}/);
  return next < 0 ? rest : rest.slice(0, next);
}

/** Markers read from a pack's texts. */
export function packMarkers(pack: PromptPack): RequestMarkers {
  const t = pack.texts;
  const types = [t.typeString, t.typeArray, t.typeObject].map(escape).join('|');
  const metadataType = new RegExp(`${escape(before(t.metadata, 'type'))}(${types})${escape(after(t.metadata, 'type'))}`);
  const queryStart = before(t.metadataQuery, 'query');
  const queryEnd = after(t.metadataQuery, 'query');
  // Later turns' template first: the first turn's usually ends with it.
  const turnSource = (template: string): string =>
    escape(template).replace(escape('{turn}'), '(\\d+)').replace(escape('{max_iterations}'), '(\\d+)');
  const turnPattern = new RegExp(t.turnFirst.endsWith(t.turn) ? turnSource(t.turn) : `${turnSource(t.turn)}|${turnSource(t.turnFirst)}`);
  const outputHeads = [before(t.replOutput, 'output'), before(t.replOutputBlock, 'block')].filter((h) => h !== '');
  const last = (messages: MockMessage[]): string => messages.at(-1)?.content ?? '';
  return {
    metadataType,
    isRlmSystem: (system) => system.startsWith(before(t.system, 'tools_section').slice(0, 40)),
    language: () => pack.language,
    isFinalRequest: (messages) => last(messages) === t.finalAnswerRequest,
    isCompactionRequest: (messages) => last(messages) === t.compactionRequest,
    findQuery(text) {
      const at = queryStart === '' ? -1 : text.indexOf(queryStart);
      if (at < 0) return null;
      const start = at + queryStart.length;
      const end = queryEnd === '' ? -1 : text.indexOf(queryEnd, start);
      return (end < 0 ? text.slice(start) : text.slice(start, end)).trim();
    },
    turn: turnPattern,
    isReplOutput: (text) => outputHeads.some((h) => text.includes(h)),
  };
}
