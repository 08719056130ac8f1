// The app's services: the host calls (sessions, runs, fork, re-execution, exports) and the
// two helpers that work with the parse worker, `logs` (loading a log into a session) and
// `texts` (reading back the long texts a big log's first read left out). Views call these;
// they never touch the carrier or a worker themselves.
import type { RunId } from '../../src-shared/events.ts';
import { encodeNative } from '../../src-shared/codecs/native.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import { exportRlmPython } from '../../src-shared/codecs/rlm-python-export.ts';
import { asSessionId } from '../../src-shared/events.ts';
import type {
  Breakpoint,
  ContextSource,
  ForkSession,
  RerunSession,
  ReplyOf,
  RunCounterfactual,
  SessionSummary,
  StartSession,
} from '../../src-shared/protocol.ts';
import type { CounterfactualRecord } from '../../src-shared/analysis/counterfactual.ts';
import { ProtocolClient } from '../../src-shared/protocol-client.ts';
import type { Carrier } from '../transport/carrier.ts';
import { hostIdOf, pauseOf, type StudioStore } from '../store/studio.ts';
import { draftSiteOf, pendingEdits } from '../store/paused-drafts.ts';
import { downloadBlob, downloadText } from '../lib/download.ts';
import { sessionLanguage } from '../lib/repl-language.ts';
import { LogLoader } from './log-loading.ts';
import { TextReadback, type WorkerFactory } from './text-readback.ts';

/** Where the page can GET a host session's raw log (`/api/log`), or null (no host serves it: a bundle's page, tests). */
export type LogUrlOf = (sessionId: string) => string | null;
/** Makes the shareable HTML file of a native log (lib/shareable-html.ts); none in a bundle's own page. */
export type ShareableHtml = (name: string, nativeLog: string) => Promise<Blob>;

export type ControlKind = 'pause' | 'continue' | 'step' | 'cancel';

/**
 * Texts longer than this (a context picked in a form, a log opened through the host) go to the
 * host by POST /api/upload where the page has it (web mode): a WebSocket message is capped
 * (src-main/transport/message-guard.ts). In the desktop app they go inline over IPC.
 */
const UPLOAD_ABOVE_CHARS = 1024 * 1024;

export class Services {
  readonly host: ProtocolClient | null;
  private localCounter = 0;

  readonly store: StudioStore;
  private readonly logUrlOf: LogUrlOf;
  private readonly contextUrlOf: LogUrlOf;
  private readonly uploadUrlOf: (name: string) => string | null;
  private readonly shareableHtml: ShareableHtml | null;
  /** Loading logs into sessions (the parse worker). */
  readonly logs: LogLoader;
  /** Reading back left-out texts. */
  readonly texts: TextReadback;
  /** Files opened in this page, by session: a reference-library log goes to the host as itself. */
  private readonly files = new Map<string, Blob>();

  constructor(
    store: StudioStore,
    carrier: Carrier | null,
    makeWorker: WorkerFactory,
    logUrlOf: LogUrlOf = () => null,
    shareableHtml: ShareableHtml | null = null,
    contextUrlOf: LogUrlOf = () => null,
    uploadUrlOf: (name: string) => string | null = () => null,
  ) {
    this.store = store;
    this.logUrlOf = logUrlOf;
    this.contextUrlOf = contextUrlOf;
    this.uploadUrlOf = uploadUrlOf;
    this.texts = new TextReadback(store, makeWorker, (what, err) => this.fail(what, err));
    this.logs = new LogLoader(store, makeWorker, (id, source) => this.texts.setSource(id, source));
    this.shareableHtml = shareableHtml;
    const s = () => store.getState();
    this.host = carrier ? new ProtocolClient(carrier) : null;
    this.host?.onPush((m) => {
      if (m.kind === 'events') {
        s().ingestEvents(m.sessionId, m.events);
        store.liveReplies.getState().settle(m.sessionId, m.events);
      } else if (m.kind === 'live') store.liveReplies.getState().add(m.sessionId, m.deltas);
      else if (m.kind === 'session') s().upsertSummary(m.session);
      else if (m.kind === 'progress')
        s().setLoading(m.sessionId, m.bytesRead >= m.totalBytes ? null : { bytes: m.bytesRead, total: m.totalBytes });
    });
    this.host?.onState((st) => {
      s().setConnection(st);
      if (st === 'open') void this.refreshLists();
    });
    s().setConnection(carrier ? carrier.state : 'none', carrier ? carrier.kind : null);
    // A carrier that is already open reported it before `this.host` existed, when
    // refreshLists could not run yet.
    if (carrier?.state === 'open') void this.refreshLists();
  }

  private fail(what: string, err: unknown): void {
    this.store.getState().notify('error', `${what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  async refreshLists(): Promise<void> {
    if (!this.host) return;
    try {
      const [recent, profiles, sessions] = await Promise.all([
        this.host.call('runs.recent', { limit: 50 }),
        this.host.call('profiles.list'),
        this.host.call('sessions.list'),
      ]);
      const s = this.store.getState();
      s.setRecent(recent.runs);
      s.setProfiles(profiles.profiles);
      for (const summary of sessions.sessions) s.upsertSummary(summary);
    } catch (err) {
      this.fail('could not list runs', err);
    }
  }

  /** Opens a dropped/picked file in this page: parsed in a worker, never sent anywhere. */
  openFile(file: Blob & { name?: string }): Promise<string> {
    const id = `local-${++this.localCounter}-${Date.now().toString(36)}`;
    const st = this.store.getState();
    st.addLocalSession(id, file.name ?? 'dropped log');
    st.setPanel('run');
    st.setLoading(id, { bytes: 0, total: file.size });
    this.files.set(id, file);
    return this.logs.load(id, { file }, file.name ?? 'the file').then(() => id);
  }

  /**
   * Settles once the session holds its whole log: no load of this page's under way (the parse
   * worker's, `logs`) nor one the host reports (its `progress` pushes), and every event folded
   * in. At once for a session that is not loading or is gone. Whatever computes over the whole
   * session from the store (an export, a fork of a dropped file, the coverage map) waits for it.
   */
  async whenLoaded(sessionId: string): Promise<void> {
    await this.logs.whenLoaded(sessionId);
    const whole = (): boolean => {
      const e = this.store.getState().sessions.get(sessionId);
      return !e || (e.loading === null && this.store.settled());
    };
    if (whole()) return;
    await new Promise<void>((resolve) => {
      const stop = this.store.subscribe(() => {
        if (!whole()) return;
        stop();
        resolve();
      });
    });
  }

  /** Where the page can GET the context a host session ran on (`/api/context`), or null (not a host session, or no host serves it). */
  contextUrl(sessionId: string): string | null {
    const hostId = hostIdOf(this.store.getState().sessions.get(sessionId));
    return hostId === null ? null : this.contextUrlOf(hostId);
  }

  /** Starts a parse worker now, so opening a file does not wait for the worker's script. */
  prewarm(): void {
    this.logs.prewarm();
  }

  /**
   * Subscribes to a host session. A saved log opened read-only is first read from the host's
   * `/api/log` in the worker (bytes, not one WebSocket message per event batch, and no host
   * re-encoding); the subscription then starts after the last event read, so anything the
   * host adds later still streams in. Running sessions subscribe from `from` as before.
   */
  private async subscribeHost(summary: SessionSummary, from: number): Promise<ReplyOf<'subscribe'> | null> {
    const host = this.needHost();
    const url = summary.readOnly && summary.logFile && from === 0 ? this.logUrlOf(summary.sessionId) : null;
    if (url) {
      const s = this.store.getState();
      s.setLoading(summary.sessionId, { bytes: 0, total: 1 });
      const last = await this.logs.load(summary.sessionId, { url }, summary.title || 'the log');
      // Closed while it loaded: nothing to follow.
      if (last === null) return null;
      return host.call('subscribe', { sessionId: summary.sessionId, fromSeq: last + 1 });
    }
    return host.call('subscribe', { sessionId: summary.sessionId, fromSeq: from });
  }

  private needHost(): ProtocolClient {
    if (!this.host) throw new Error('no host connected (open the app through `rlm-studio serve` or the desktop app)');
    return this.host;
  }

  private async adopt(summary: SessionSummary, activate = true): Promise<string> {
    const s = this.store.getState();
    s.upsertSummary(summary);
    if (activate) {
      s.setActive(summary.sessionId);
      s.setPanel('run');
    }
    const entry = this.store.getState().sessions.get(summary.sessionId);
    const from = entry ? entry.events.length : 0;
    const reply = await this.subscribeHost(summary, from);
    if (!reply) return summary.sessionId;
    if (reply.header) this.store.getState().setHeader(summary.sessionId, reply.header);
    this.store.getState().upsertSummary(reply.session);
    return summary.sessionId;
  }

  /** Shows a session; a host session is subscribed on first view (also ids from `#session=`). */
  async openSession(sessionId: string): Promise<void> {
    if (!sessionId) return;
    const entry = this.store.getState().sessions.get(sessionId);
    if (entry?.source === 'local') {
      this.store.getState().setActive(sessionId);
      return;
    }
    if (this.host && this.host.lastSeq(sessionId) === undefined) {
      try {
        // `#session=` arrives before the session list: look the summary up (a saved log loads through /api/log).
        let summary = entry?.summary ?? null;
        if (!summary) summary = (await this.host.call('sessions.list')).sessions.find((x) => x.sessionId === sessionId) ?? null;
        if (summary) {
          this.store.getState().upsertSummary(summary);
          this.store.getState().setActive(sessionId);
          this.store.getState().setPanel('run');
        }
        const reply = summary
          ? await this.subscribeHost(summary, entry ? entry.events.length : 0)
          : await this.host.call('subscribe', { sessionId, fromSeq: entry ? entry.events.length : 0 });
        if (!reply) return;
        const s = this.store.getState();
        s.upsertSummary(reply.session);
        if (reply.header) s.setHeader(sessionId, reply.header);
      } catch (e) {
        this.fail('could not open the session', e);
        return;
      }
    }
    this.store.getState().setActive(sessionId);
    this.store.getState().setPanel('run');
  }

  /**
   * Closes a session in this page: stops its load, stops following it on the host, and lets
   * go of its events (and of the file its left-out texts were to be read from). A host
   * session stays listed, unloaded: opening it again reads it afresh. Nothing on disk or on
   * the host is touched; a running session keeps running.
   */
  async closeSession(sessionId: string): Promise<void> {
    const entry = this.store.getState().sessions.get(sessionId);
    if (!entry) return;
    this.logs.stop(sessionId);
    this.texts.forget(sessionId);
    this.files.delete(sessionId);
    const s = this.store.getState();
    s.setReplay(sessionId, null);
    s.closeSession(sessionId);
    if (entry.summary) s.upsertSummary(entry.summary);
    if (this.host && this.host.lastSeq(sessionId) !== undefined) {
      try {
        await this.host.call('unsubscribe', { sessionId });
      } catch (err) {
        this.fail('could not stop following the session', err);
      }
    }
  }

  async openPath(path: string): Promise<void> {
    try {
      const { session } = await this.needHost().call('session.open', { path });
      await this.adopt(session);
    } catch (err) {
      this.fail(`could not open ${path}`, err);
    }
  }

  /** A long text stored on the host as a file (its path), or null where it goes inline. */
  private async uploaded(name: string, text: string): Promise<string | null> {
    const url = text.length > UPLOAD_ABOVE_CHARS ? this.uploadUrlOf(name) : null;
    if (url === null) return null;
    const res = await fetch(url, { method: 'POST', body: text, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
    const body = (await res.json().catch(() => ({}))) as { path?: unknown; error?: unknown };
    if (!res.ok || typeof body.path !== 'string')
      throw new Error(`the host did not take ${name}: ${typeof body.error === 'string' ? body.error : `HTTP ${res.status}`}`);
    return body.path;
  }

  /** A log's text opened on the host: inline, or uploaded and opened as the file it now is. */
  private async openTextOnHost(name: string, text: string): Promise<SessionSummary> {
    const path = await this.uploaded(name, text);
    const host = this.needHost();
    return path === null
      ? (await host.call('session.openText', { name, text })).session
      : (await host.call('session.open', { path })).session;
  }

  /** A pasted or picked context as the host takes it: a long one uploaded and named by its path. */
  private async contextForHost(c: ContextSource): Promise<ContextSource> {
    if (c.kind !== 'text' && c.kind !== 'json') return c;
    const path = await this.uploaded(c.kind === 'json' ? 'context.json' : 'context.txt', c.kind === 'json' ? c.json : c.text);
    return path === null ? c : { kind: 'file', path };
  }

  async openTextViaHost(name: string, text: string): Promise<string | null> {
    try {
      const session = await this.openTextOnHost(name, text);
      return await this.adopt(session);
    } catch (err) {
      this.fail(`could not open ${name}`, err);
      return null;
    }
  }

  async start(params: StartSession): Promise<string | null> {
    try {
      const { session } = await this.needHost().call('session.start', {
        params: { ...params, context: await this.contextForHost(params.context) },
      });
      this.store.getState().setBreakpoints(session.sessionId, params.breakpoints);
      return await this.adopt(session);
    } catch (err) {
      this.fail('could not start the run', err);
      return null;
    }
  }

  async control(sessionId: string, kind: ControlKind): Promise<void> {
    try {
      const host = this.needHost();
      // Code edited in the paused editor runs when the session goes on by Continue or Step
      // (buttons, F8, F10) too, not only by the editor's own button; it was dropped silently.
      const at = kind === 'continue' || kind === 'step' ? draftSiteOf(pauseOf(this.store.getState(), sessionId)) : null;
      const edits = at ? pendingEdits(this.store.drafts.getState(), sessionId, at) : null;
      if (at && edits) {
        await host.call('session.edit', { sessionId, edit: { blocks: edits } });
        // Sent: a later pause with the same reply must not send them a second time.
        this.store.drafts.getState().drop(sessionId, at);
      }
      const { session } = await host.call(`session.${kind}`, { sessionId });
      this.store.getState().upsertSummary(session);
    } catch (err) {
      this.fail(`${kind} failed`, err);
    }
  }

  async setBreakpoints(sessionId: string, breakpoints: Breakpoint[]): Promise<void> {
    this.store.getState().setBreakpoints(sessionId, breakpoints);
    try {
      const { session } = await this.needHost().call('session.setBreakpoints', { sessionId, breakpoints });
      this.store.getState().upsertSummary(session);
    } catch (err) {
      this.fail('could not set breakpoints', err);
    }
  }

  /** Sends edited code of the paused reply, then continues. */
  async editAndContinue(sessionId: string, blocks: Record<string, string>, text?: string): Promise<void> {
    try {
      const host = this.needHost();
      const edit = text === undefined ? { blocks } : { blocks, text };
      const at = draftSiteOf(pauseOf(this.store.getState(), sessionId));
      await host.call('session.edit', { sessionId, edit });
      if (at) this.store.drafts.getState().drop(sessionId, at);
      const { session } = await host.call('session.continue', { sessionId });
      this.store.getState().upsertSummary(session);
    } catch (err) {
      this.fail('could not run the edited code', err);
    }
  }

  async loadVariables(sessionId: string, runId: string): Promise<void> {
    try {
      const { variables } = await this.needHost().call('session.variables', { sessionId, runId });
      this.store.getState().setVariables({ sessionId, runId, list: variables });
    } catch (err) {
      this.fail('could not read the variables', err);
    }
  }

  /**
   * The host's id for a session; a local one (a dropped file) is first handed to the host: a
   * reference-library log as the file itself (the host then knows it for one, and re-executes it
   * in the reference's terms), anything else as a native log of the events.
   */
  private async hostSessionFor(sessionId: string): Promise<string> {
    const entry = this.store.getState().sessions.get(sessionId);
    let hostId = hostIdOf(entry);
    if (!hostId && entry) {
      const file = this.files.get(sessionId);
      // The format is known from the first bytes; the file itself is whole even while it loads.
      const asIs = file !== undefined && entry.format === 'rlm-python';
      const text = asIs ? await file.text() : await this.nativeText(sessionId);
      const name = asIs ? entry.title : `${entry.title}.rlm.jsonl`;
      hostId = (await this.openTextOnHost(name, text)).sessionId;
      // The entry as it is now: it was replaced by every commit since `entry` was read.
      const now = this.store.getState().sessions.get(sessionId);
      if (now) {
        const sessions = new Map(this.store.getState().sessions);
        sessions.set(sessionId, { ...now, hostSessionId: hostId });
        this.store.setState({ sessions });
      }
    }
    if (!hostId) throw new Error('unknown session');
    return hostId;
  }

  /** Forks a session at a run's iteration; a local session is first handed to the host. */
  async fork(sessionId: string, runId: RunId, iteration: number, extra: Partial<ForkSession> = {}): Promise<string | null> {
    try {
      const hostId = await this.hostSessionFor(sessionId);
      const { session } = await this.needHost().call('session.fork', {
        params: { breakpoints: [], ...extra, sessionId: hostId, runId, iteration },
      });
      return await this.adopt(session);
    } catch (err) {
      this.fail('fork failed', err);
      return null;
    }
  }

  /**
   * Re-runs one recorded sub-call with an edited prompt/model (`session.counterfactual`); a
   * local session is first handed to the host. A child run's re-run comes back `running`.
   */
  async runCounterfactual(sessionId: string, params: Omit<RunCounterfactual, 'sessionId'>): Promise<CounterfactualRecord | null> {
    try {
      const hostId = await this.hostSessionFor(sessionId);
      const { counterfactual } = await this.needHost().call('session.counterfactual', {
        params: { ...params, sessionId: hostId },
      });
      // The child run's own session (the host announced it before replying): streaming, but the view stays here.
      const child = counterfactual.session ? this.store.getState().sessions.get(counterfactual.session.sessionId)?.summary : undefined;
      if (child) await this.adopt(child, false);
      return counterfactual;
    } catch (err) {
      this.fail('the counterfactual re-run failed', err);
      return null;
    }
  }

  /** The counterfactual re-runs recorded for a session's log (none for a session the host does not know yet). */
  async counterfactuals(sessionId: string): Promise<CounterfactualRecord[]> {
    const hostId = hostIdOf(this.store.getState().sessions.get(sessionId));
    if (!hostId || !this.host) return [];
    try {
      return (await this.host.call('session.counterfactuals', { sessionId: hostId })).counterfactuals;
    } catch (err) {
      this.fail('could not list the counterfactual re-runs', err);
      return [];
    }
  }

  /**
   * Asks another question in a finished live session's REPL (`session.followUp`); the turn
   * streams into the same session. `context` null: the question is the turn's context.
   */
  async followUp(sessionId: string, query: string, context: ContextSource | null): Promise<boolean> {
    try {
      const hostId = hostIdOf(this.store.getState().sessions.get(sessionId));
      if (hostId === null) throw new Error('a log opened in this page keeps no REPL to continue in');
      const { session } = await this.needHost().call('session.followUp', {
        params: { sessionId: hostId, query, ...(context ? { context: await this.contextForHost(context) } : {}) },
      });
      this.store.getState().upsertSummary(session);
      return true;
    } catch (err) {
      this.fail('the follow-up was not started', err);
      return false;
    }
  }

  /** Re-executes a session's code blocks in a new host session that compares each block's output with the recorded one. */
  async rerun(sessionId: string, extra: Omit<RerunSession, 'sessionId'> = {}): Promise<string | null> {
    try {
      const hostId = await this.hostSessionFor(sessionId);
      const { session } = await this.needHost().call('session.rerun', { params: { ...extra, sessionId: hostId } });
      return await this.adopt(session);
    } catch (err) {
      this.fail('re-execution failed', err);
      return null;
    }
  }

  /** The session's whole log as a native log (once it is all loaded, with every left-out text read back). */
  async nativeText(sessionId: string): Promise<string> {
    await this.whenLoaded(sessionId);
    await this.texts.wholeTexts(sessionId);
    const entry = this.store.getState().sessions.get(sessionId);
    if (!entry) return '';
    // A reference-library log has no header: the one made for it says its code is Python.
    const header = entry.header ?? makeHeader(asSessionId(sessionId), new Date(), undefined, sessionLanguage(entry));
    return [...encodeNative(header, entry.events)].join('');
  }

  get canShareHtml(): boolean {
    return this.shareableHtml !== null;
  }

  /** Export ▸ Shareable HTML: the read-only viewer with this session's log inside, as one file. */
  async exportShareableHtml(sessionId: string): Promise<void> {
    const entry = this.store.getState().sessions.get(sessionId);
    if (!entry || !this.shareableHtml) return;
    try {
      const blob = await this.shareableHtml(entry.title, await this.nativeText(sessionId));
      downloadBlob(`${fileBase(entry.title)}.html`, blob);
    } catch (err) {
      this.fail('could not make the HTML file', err);
    }
  }

  async exportSession(sessionId: string, format: 'native' | 'rlm-python'): Promise<void> {
    const entry = this.store.getState().sessions.get(sessionId);
    if (!entry) return;
    const base = fileBase(entry.title);
    try {
      if (entry.source === 'host' && this.host) {
        const { fileName, text } = await this.host.call('session.export', { sessionId, format });
        downloadText(fileName, text, 'application/x-ndjson');
        return;
      }
      if (format === 'native') downloadText(`${base}.rlm.jsonl`, await this.nativeText(sessionId), 'application/x-ndjson');
      else {
        await this.whenLoaded(sessionId);
        await this.texts.wholeTexts(sessionId);
        const whole = this.store.getState().sessions.get(sessionId);
        if (!whole) return;
        downloadText(`${base}.rlm-python.jsonl`, exportRlmPython(whole.events, whole.header).join(''), 'application/x-ndjson');
      }
    } catch (err) {
      this.fail('export failed', err);
    }
  }
}

/** A session's title as a file name without extension. */
function fileBase(title: string): string {
  return title.replace(/\.(rlm\.)?jsonl$/, '').replace(/[^\w.-]+/g, '_') || 'session';
}
