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
  type VariableView,
} from '../../src-shared/protocol.ts';
import { runJob } from './analysis-jobs.ts';
import type { Counterfactuals } from './counterfactual.ts';
import type { Evaluations } from './evaluations.ts';
import { openSweep } from './sweeps.ts';
import type { FollowUps } from './follow-ups.ts';
import { CommandError } from './command-error.ts';
import { changeSessionLabels, runQuery, sessionLabels } from './labels-and-queries.ts';
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
      typeof raw === 'object' && raw !== null && 'id' in raw && Number.isInteger((raw as { id: unknown }).id)
        ? Math.max(0, (raw as { id: number }).id)
        : 0;
    parts.subscribers.safeSend(client, { kind: 'reply', id, ok: false, error: { code: 'bad_request', message: parsed.error } });
    return;
  }
  const { id } = parsed.message;
  try {
    const result = await execute(parts, client, parsed.message);
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

/** Runs one command for a client. */
export async function execute(parts: HostParts, client: Client | null, msg: ClientMessage): Promise<Replies[CommandType]> {
  const { sessions, subscribers, live, followUps, profiles, savedLogs, evaluations, counterfactuals } = parts;
  const summary = (s: Session): SessionSummary => subscribers.summary(s);
  const c = msg.command;
  switch (c.type) {
    case 'hello':
      if (c.protocol !== PROTOCOL_VERSION)
        throw new CommandError('bad_request', `protocol ${c.protocol} is not supported; this host speaks ${PROTOCOL_VERSION}`);
      return { protocol: PROTOCOL_VERSION, host: parts.label ?? 'rlm-studio' } satisfies Replies['hello'];
    case 'sessions.list':
      return { sessions: [...sessions.values()].map(summary) } satisfies Replies['sessions.list'];
    case 'session.start':
      return { session: summary(await live.start(c.params)) };
    case 'session.open':
      return { session: summary(await savedLogs.open(c.path)) };
    case 'session.openText':
      return { session: summary(savedLogs.openText(c.name, c.text)) };
    case 'session.cancel':
      return { session: summary(live.cancel(c.sessionId)) };
    case 'session.pause':
      return { session: summary(live.control(c.sessionId, { t: 'pause' })) };
    case 'session.continue':
      return { session: summary(live.control(c.sessionId, { t: 'continue', all: c.all === true })) };
    case 'session.step':
      return { session: summary(live.control(c.sessionId, { t: 'step' })) };
    case 'session.setBreakpoints': {
      const s = sessions.live(c.sessionId);
      s.breakpoints = c.breakpoints;
      if (!TERMINAL.has(s.status)) toWorker(s, { t: 'breakpoints', breakpoints: c.breakpoints });
      return { session: summary(s) };
    }
    case 'session.edit': {
      const s = sessions.live(c.sessionId);
      const r = await request(s, (req) => ({ t: 'edit', req, edit: c.edit }));
      if (r.pause) s.pause = r.pause;
      subscribers.broadcast(s);
      return { session: summary(s) };
    }
    case 'session.variables': {
      const s = sessions.live(c.sessionId);
      const r = await request(s, (req) => ({ t: 'variables', req, runId: c.runId }));
      return { variables: (r.variables ?? []) satisfies VariableView[] };
    }
    case 'session.fork':
      return { session: summary(await live.fork(c.params, counterfactuals)) };
    case 'session.rerun':
      return { session: summary(await live.rerun(c.params)) };
    case 'session.followUp':
      return { session: summary(followUps.followUp(c.params)) };
    case 'session.counterfactual':
      return { counterfactual: await counterfactuals.run(c.params) };
    case 'session.counterfactuals':
      return { counterfactuals: await counterfactuals.list(c.sessionId) };
    case 'session.export':
      return savedLogs.exportSession(c.sessionId, c.format);
    case 'profiles.list':
      return { profiles: profiles.list() };
    case 'profiles.save':
      return profiles.save(c.profile);
    case 'profiles.delete':
      return profiles.deleteProfile(c.profile);
    case 'profiles.setKey':
      return profiles.setKey(c.profile, c.key);
    case 'runs.recent':
      return { runs: await savedLogs.recentRuns(c.limit) };
    case 'runs.watch':
      if (!client) throw new CommandError('bad_request', 'runs.watch needs a connected client to push changes to');
      return { listing: await parts.runsBrowser.watch(client, c.folders) };
    case 'runs.unwatch':
      if (client) parts.runsBrowser.unwatch(client);
      return {};
    case 'subscribe': {
      const s = sessions.get(c.sessionId);
      if (client) client.subs.set(s.id, Math.min(c.fromSeq, s.count));
      return { session: summary(s), header: s.header };
    }
    case 'unsubscribe':
      client?.subs.delete(c.sessionId);
      return {};
    case 'eval.open':
      return evaluations.openEval(c.path, c.openLogs, c.scorer);
    case 'metrics.open':
      return runJob({ job: 'metrics', path: c.path, bins: c.bins });
    case 'eval.coverage':
      return runJob({ job: 'coverage', path: c.path });
    case 'sweep.open':
      return { sweep: openSweep(c.path) };
    case 'labels.get':
      return { labels: await sessionLabels(c.sessionId, sessions.get(c.sessionId).logFile) };
    case 'labels.change':
      return { labels: await changeSessionLabels(c.sessionId, sessions.get(c.sessionId).logFile, c.change) };
    case 'query.run':
      return runQuery(c.expression, c.paths);
  }
}
