// The page's carriers of the protocol: WebSocket (web mode) and Electron's preload bridge.
// The shared ProtocolClient (src-shared/protocol-client.ts) sits on top and the store only
// ever sees that client, so it cannot tell which carrier it is on.
import type { HostMessage } from '../../src-shared/protocol.ts';
import { CarrierBase } from '../../src-shared/carrier-base.ts';
import type { OutgoingMessage, ProtocolCarrier } from '../../src-shared/protocol-client.ts';

export interface Carrier extends ProtocolCarrier {
  readonly kind: 'websocket' | 'electron' | 'memory';
}

/** What the Electron preload exposes on `window.rlmHost` (named methods only). */
interface PreloadBridge {
  send(message: OutgoingMessage): void;
  onMessage(listener: (message: unknown) => void): (() => void) | void;
}

const KINDS = new Set(['reply', 'events', 'session', 'progress', 'runs', 'live']);

/**
 * Light structural check of what arrives from the host. The host validated its events when
 * it read or produced them; checking every event with zod here would cost the main thread
 * on a 100 MB subscribe, so only the envelope is checked.
 */
export function parseHostMessage(raw: unknown): HostMessage | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const kind = (raw as { kind?: unknown }).kind;
  if (typeof kind !== 'string' || !KINDS.has(kind)) return null;
  const m = raw as Record<string, unknown>;
  switch (kind) {
    case 'reply':
      return typeof m.id === 'number' && typeof m.ok === 'boolean' ? (raw as HostMessage) : null;
    case 'events': {
      if (typeof m.sessionId !== 'string' || !Array.isArray(m.events)) return null;
      for (const e of m.events as unknown[]) {
        if (typeof e !== 'object' || e === null) return null;
        const ev = e as Record<string, unknown>;
        if (typeof ev.type !== 'string' || typeof ev.seq !== 'number' || typeof ev.runId !== 'string') return null;
      }
      return raw as HostMessage;
    }
    case 'session':
      return typeof m.session === 'object' && m.session !== null ? (raw as HostMessage) : null;
    case 'progress':
      return typeof m.sessionId === 'string' ? (raw as HostMessage) : null;
    case 'runs':
      return Array.isArray(m.changed) && Array.isArray(m.removed) && Array.isArray(m.problems) ? (raw as HostMessage) : null;
    case 'live':
      return typeof m.sessionId === 'string' && Array.isArray(m.deltas) ? (raw as HostMessage) : null;
    default:
      return null;
  }
}

/** WebSocket carrier with reconnect (capped exponential backoff). */
class WebSocketCarrier extends CarrierBase implements Carrier {
  readonly kind = 'websocket' as const;
  private ws: WebSocket | null = null;
  private closed = false;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  private readonly url: string;

  constructor(url: string) {
    super('connecting');
    this.url = url;
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    this.setState('connecting');
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.setState('open');
    };
    ws.onmessage = (ev: MessageEvent) => {
      if (typeof ev.data !== 'string') return;
      let raw: unknown;
      try {
        raw = JSON.parse(ev.data);
      } catch {
        return;
      }
      const msg = parseHostMessage(raw);
      if (msg) this.emitMessage(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.setState('closed');
      if (this.closed) return;
      const delay = Math.min(5000, 200 * 2 ** this.attempt++);
      this.timer = setTimeout(() => this.connect(), delay);
    };
    ws.onerror = () => {
      /* onclose follows and schedules the reconnect */
    };
  }

  send(message: OutgoingMessage): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close();
    this.setState('closed');
  }
}

/** Electron carrier: the preload bridge is always "open" (IPC has no reconnects). */
class PreloadCarrier extends CarrierBase implements Carrier {
  readonly kind = 'electron' as const;
  private off: (() => void) | void;

  private readonly bridge: PreloadBridge;

  constructor(bridge: PreloadBridge) {
    super('open');
    this.bridge = bridge;
    this.off = bridge.onMessage((raw) => {
      const msg = parseHostMessage(raw);
      if (msg) this.emitMessage(msg);
    });
  }
  send(message: OutgoingMessage): void {
    this.bridge.send(message);
  }
  close(): void {
    if (this.off) this.off();
    this.setState('closed');
  }
}

declare global {
  interface Window {
    rlmHost?: PreloadBridge;
  }
}

/** Whether this page is the desktop app's: the preload exposed its bridge. */
export function hasPreloadBridge(win: Pick<Window, 'rlmHost'>): win is { rlmHost: PreloadBridge } {
  return win.rlmHost !== undefined && typeof win.rlmHost.send === 'function';
}

/** Picks the carrier for this page: the preload bridge when present, else the WebSocket of the serving host. */
export function carrierForPage(loc: Location, win: Window): Carrier | null {
  if (hasPreloadBridge(win)) return new PreloadCarrier(win.rlmHost);
  const token = new URLSearchParams(loc.search).get('token');
  if (!token || (loc.protocol !== 'http:' && loc.protocol !== 'https:')) return null;
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws';
  return new WebSocketCarrier(`${scheme}://${loc.host}/ws?token=${encodeURIComponent(token)}`);
}
