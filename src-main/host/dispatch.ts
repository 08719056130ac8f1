// Protocol dispatch: every message a client sends is validated with the protocol's schemas,
// and each command gets exactly one reply, from the part of the host that owns it.
import {
  type ClientMessage,
  type CommandType,
  type ErrorCode,
  parseClientMessage,
  PROTOCOL_VERSION,
  type Replies,
  type SessionSummary,
} from '../../src-shared/protocol.ts';
import { runJob } from './analysis-jobs.ts';
import type { Counterfactuals } from './counterfactual.ts';
import type { Evaluations } from './evaluations.ts';
import { openSweep } from './sweeps.ts';
import type { FollowUps } from './follow-ups.ts';
import { CommandError } from './command-error.ts';
import { changeSessionLabels, changeVerdict, runQuery, sessionLabels } from './labels-and-queries.ts';
import { listFindings } from '../analysis/scan/findings-dir.ts';
import type { LiveSessions } from './live-sessions.ts';
import type { ProfileKeys } from './profile-keys.ts';
import type { RunsBrowser } from './runs-browser.ts';
import type { SavedLogs } from './saved-logs.ts';
import { request, type Session, type SessionTable, TERMINAL, toWorker } from './session-state.ts';
import type { Client, Subscribers } from './subscribers.ts';

/** The parts of a host that commands are dispatched to. */
export interface HostParts {
  /** Shown in `hello`. */
  label: string | undefined;
  sessions: SessionTable;
  subscribers: Subscribers;
  live: LiveSessions;
  followUps: FollowUps;
  profiles: ProfileKeys;
  savedLogs: SavedLogs;
  evaluations: Evaluations;
  counterfactuals: Counterfactuals;
  runsBrowser: RunsBrowser;
}

export async function receive(parts: HostParts, client: Client, raw: unknown): Promise<void> {
  const parsed = parseClientMessage(raw);
  if (!parsed.ok) {
    const id =
      typeof raw === 'object' && raw !== null && 'id' in raw && Number.isInteger(raw.id) ? Math.max(0, (raw as { id: number }).id) : 0;
    parts.subscribers.safeSend(client, { kind: 'reply', id, ok: false, error: { code: 'bad_request', message: parsed.error } });
    return;
  }
  const { id } = parsed.message;
  try {
    const result = await execute(parts, client, parsed.message.command);
    parts.subscribers.safeSend(client, { kind: 'reply', id, ok: true, result });
    // Events of a new subscription go after its reply.
    if (parsed.message.command.type === 'subscribe') parts.subscribers.markDirty(parsed.message.command.sessionId);
  } catch (err) {
    const code: ErrorCode = err instanceof CommandError ? err.code : 'internal';
    parts.subscribers.safeSend(client, {
      kind: 'reply',
      id,
      ok: false,
      error: { code, message: err instanceof Error ? err.message : String(err) },
    });
  }
}

/** One command of the protocol, by its type. */
export type CommandOf<K extends CommandType> = Extract<ClientMessage['command'], { type: K }>;

/** What a handler is given besides its command. */
interface HandlerContext {
  parts: HostParts;
  client: Client | null;
  summary: (s: Session) => SessionSummary;
}

/**
 * A handler per command type, each typed to its own reply: a handler that returns another
 * command's reply, or a command without a handler, does not compile.
 */
export type Handlers = { [K in CommandType]: (command: CommandOf<K>, ctx: HandlerContext) => Replies[K] | Promise<Replies[K]> };

const handlers: Handlers = {
  hello: (c, { parts }) => {
    if (c.protocol !== PROTOCOL_VERSION)
      throw new CommandError('bad_request', `protocol ${c.protocol} is not supported; this host speaks ${PROTOCOL_VERSION}`);
    return { protocol: PROTOCOL_VERSION, host: parts.label ?? 'rlm-studio' };
  },
  'sessions.list': (_c, { parts, summary }) => ({ sessions: [...parts.sessions.values()].map(summary) }),
  'session.start': async (c, { parts, summary }) => ({ session: summary(await parts.live.start(c.params)) }),
  'session.open': async (c, { parts, summary }) => ({ session: summary(await parts.savedLogs.open(c.path)) }),
  'session.openText': (c, { parts, summary }) => ({ session: summary(parts.savedLogs.openText(c.name, c.text)) }),
  'session.cancel': (c, { parts, summary }) => ({ session: summary(parts.live.cancel(c.sessionId)) }),
  'session.pause': (c, { parts, summary }) => ({ session: summary(parts.live.control(c.sessionId, { t: 'pause' })) }),
  'session.continue': (c, { parts, summary }) => ({
    session: summary(parts.live.control(c.sessionId, { t: 'continue', all: c.all === true })),
  }),
  'session.step': (c, { parts, summary }) => ({ session: summary(parts.live.control(c.sessionId, { t: 'step' })) }),
  'session.setBreakpoints': (c, { parts, summary }) => {
    const s = parts.sessions.live(c.sessionId);
    s.breakpoints = c.breakpoints;
    if (!TERMINAL.has(s.status)) toWorker(s, { t: 'breakpoints', breakpoints: c.breakpoints });
    return { session: summary(s) };
  },
  'session.edit': async (c, { parts, summary }) => {
    const s = parts.sessions.live(c.sessionId);
    const r = await request(s, (req) => ({ t: 'edit', req, edit: c.edit }));
    if (r.pause) s.pause = r.pause;
    parts.subscribers.broadcast(s);
    return { session: summary(s) };
  },
  'session.variables': async (c, { parts }) => {
    const s = parts.sessions.live(c.sessionId);
    const r = await request(s, (req) => ({ t: 'variables', req, runId: c.runId }));
    return { variables: r.variables ?? [] };
  },
  'session.fork': async (c, { parts, summary }) => ({ session: summary(await parts.live.fork(c.params, parts.counterfactuals)) }),
  'session.rerun': async (c, { parts, summary }) => ({ session: summary(await parts.live.rerun(c.params)) }),
  'session.followUp': (c, { parts, summary }) => ({ session: summary(parts.followUps.followUp(c.params)) }),
  'session.counterfactual': async (c, { parts }) => ({ counterfactual: await parts.counterfactuals.run(c.params) }),
  'session.counterfactuals': async (c, { parts }) => ({ counterfactuals: await parts.counterfactuals.list(c.sessionId) }),
  'session.export': (c, { parts }) => parts.savedLogs.exportSession(c.sessionId, c.format),
  'profiles.list': (_c, { parts }) => ({ profiles: parts.profiles.list() }),
  'profiles.save': (c, { parts }) => parts.profiles.save(c.profile),
  'profiles.delete': (c, { parts }) => parts.profiles.deleteProfile(c.profile),
  'profiles.setKey': (c, { parts }) => parts.profiles.setKey(c.profile, c.key),
  'runs.recent': async (c, { parts }) => ({ runs: await parts.savedLogs.recentRuns(c.limit) }),
  'runs.watch': async (c, { parts, client }) => {
    if (!client) throw new CommandError('bad_request', 'runs.watch needs a connected client to push changes to');
    return { listing: await parts.runsBrowser.watch(client, c.folders) };
  },
  'runs.unwatch': (_c, { parts, client }) => {
    if (client) parts.runsBrowser.unwatch(client);
    return {};
  },
  subscribe: (c, { parts, client, summary }) => {
    const s = parts.sessions.get(c.sessionId);
    if (client) client.subs.set(s.id, Math.min(c.fromSeq, s.count));
    return { session: summary(s), header: s.header };
  },
  unsubscribe: (c, { client }) => {
    client?.subs.delete(c.sessionId);
    return {};
  },
  'eval.open': (c, { parts }) => parts.evaluations.openEval(c.path, c.openLogs, c.scorer),
  'metrics.open': (c) => runJob({ job: 'metrics', path: c.path, bins: c.bins }),
  'eval.coverage': (c) => runJob({ job: 'coverage', path: c.path }),
  'sweep.open': (c) => ({ sweep: openSweep(c.path) }),
  'labels.get': async (c, { parts }) => ({ labels: await sessionLabels(c.sessionId, parts.sessions.get(c.sessionId).logFile) }),
  'labels.change': async (c, { parts }) => ({
    labels: await changeSessionLabels(c.sessionId, parts.sessions.get(c.sessionId).logFile, c.change),
  }),
  'query.run': (c) => runQuery(c.expression, c.paths),
  'findings.list': async (c) => ({ findings: await listFindings(c.paths) }),
  'findings.verdict': async (c) => ({ findings: await changeVerdict(c) }),
};

/** Runs one command for a client. */
export async function execute<K extends CommandType>(parts: HostParts, client: Client | null, command: CommandOf<K>): Promise<Replies[K]> {
  const handler: Handlers[K] = handlers[command.type];
  return await handler(command, { parts, client, summary: (s) => parts.subscribers.summary(s) });
}
