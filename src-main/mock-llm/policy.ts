// What the mock model says. A Policy is a pure function from a chat request to a reply:
// same request, same reply. `classify` reads a request the way our engine builds it
// (src-main/lm/prompt-markers.ts), so policies can tell RLM turns from sub-LM calls.
import type { ReplLanguage } from '../../src-shared/events.ts';
import { DEFAULT_MARKERS, type RequestMarkers } from './request-markers.ts';

/** A chat message as it arrives over the wire (roles other than ours are tolerated). */
export interface MockMessage {
  role: string;
  content: string;
}

export interface PolicyRequest {
  model: string;
  messages: MockMessage[];
  /** How to read the request: the server's pack's markers, else our packs' (DEFAULT_MARKERS). */
  markers?: RequestMarkers;
}

export type Policy = (req: PolicyRequest) => string;

/**
 * rlm: a turn of an RLM (system prompt present); final: the last-chance answer request;
 * compaction: the summary request; sub: a plain sub-LM call (no RLM system prompt).
 */
type RequestKind = 'rlm' | 'final' | 'compaction' | 'sub';

export interface Classified {
  kind: RequestKind;
  /** The system prompt, or '' for a sub call. */
  system: string;
  /** The language the RLM's code must be written in (see `replLanguage`); JavaScript for sub calls. */
  language: ReplLanguage;
  /** The RLM's query; null for a child RLM (its context is the prompt its parent passed) and for sub calls. */
  query: string | null;
  /** From "Turn i/N:" in the latest user message that has one; null when absent. */
  turn: number | null;
  maxTurns: number | null;
  /** Content of the last user message ('' when none). */
  lastUser: string;
  /** Every REPL-output message, oldest first (what the code printed, errors included). */
  replOutputs: string[];
  /** `[scenario:step] value` lines printed by earlier code or kept by a compaction summary. */
  tags: Tag[];
  /** How many assistant replies the history holds (turns already taken since the last compaction). */
  assistantTurns: number;
}

interface Tag {
  scope: string;
  step: string;
  value: string;
}

/** Tag lines start a line: `[needle:candidate] 4827193`. Code that prints them never puts them at a line start. */
const TAG_LINE = /^\[([a-z][\w-]*):([a-z][\w-]*)\] ?(.*)$/gm;

/**
 * The REPL language of an RLM request. The metadata message the engine writes names the
 * context's type as the REPL's language does (`str`/`list`/`dict` in Python), whatever the
 * system prompt; without one, a system prompt that says "Python REPL" means Python.
 */
export function replLanguage(system: string, metadata: string, markers: RequestMarkers = DEFAULT_MARKERS): ReplLanguage {
  return markers.language(system, metadata);
}

export function classify(req: PolicyRequest): Classified {
  const mk = req.markers ?? DEFAULT_MARKERS;
  const msgs = req.messages;
  const first = msgs[0];
  const second = msgs[1];
  const metadata = second && second.role === 'user' && mk.metadataType.test(second.content) ? second.content : '';
  // Our system prompt, or a user's own (`--system-prompt`) followed by the engine's metadata message.
  const isRlm = first?.role === 'system' && (mk.isRlmSystem(first.content) || metadata !== '');
  const system = isRlm ? first.content : '';
  const users = msgs.filter((m) => m.role === 'user');
  const lastUser = users.at(-1)?.content ?? '';
  const replOutputs = users.map((m) => m.content).filter((c) => mk.isReplOutput(c));

  let kind: RequestKind = 'sub';
  if (system) {
    if (mk.isFinalRequest(msgs)) kind = 'final';
    else if (mk.isCompactionRequest(msgs)) kind = 'compaction';
    else kind = 'rlm';
  }

  let query: string | null = null;
  let turn: number | null = null;
  let maxTurns: number | null = null;
  const tags: Tag[] = [];
  if (system) {
    for (const m of msgs) {
      if (m.role === 'system') continue;
      if (query === null) query = mk.findQuery(m.content);
      for (const t of m.content.matchAll(TAG_LINE)) tags.push({ scope: t[1]!, step: t[2]!, value: t[3]!.trim() });
    }
    for (let i = users.length - 1; i >= 0 && turn === null; i--) {
      const t = mk.turn.exec(users[i]!.content);
      if (t) {
        // The pattern may have alternatives (a pack's first and later turns): the groups that took part.
        const [n, max] = t.slice(1).filter((g) => g !== undefined);
        turn = Number(n);
        maxTurns = Number(max);
      }
    }
  }
  return {
    kind,
    system,
    language: system ? replLanguage(system, metadata, mk) : 'javascript',
    query,
    turn,
    maxTurns,
    lastUser,
    replOutputs,
    tags,
    assistantTurns: msgs.filter((m) => m.role === 'assistant').length,
  };
}

/** The last tag with this scope and step, or null. */
export function lastTag(c: Classified, scope: string, step: string): string | null {
  for (let i = c.tags.length - 1; i >= 0; i--) {
    const t = c.tags[i]!;
    if (t.scope === scope && t.step === step) return t.value;
  }
  return null;
}

export function hasTag(c: Classified, scope: string, step?: string): boolean {
  return c.tags.some((t) => t.scope === scope && (step === undefined || t.step === step));
}

/** `Name: message` of an error in the latest REPL output, or null. */
export function lastReplError(c: Classified): string | null {
  const out = c.replOutputs.at(-1);
  if (!out) return null;
  const m = /^([A-Z]\w*(?:Error|Exception)): (.*)$/m.exec(out);
  return m ? `${m[1]}: ${m[2]}` : null;
}
