// An in-process stand-in for Electron's ipcMain / ipcRenderer / webContents: the same small
// interface the carrier uses, with structured cloning as Electron does.
import type { IpcMainEventLike, IpcMainLike, IpcRendererLike, IpcSenderLike } from '../../../src-main/transport/ipc.ts';

type MainListener = (event: IpcMainEventLike, ...args: unknown[]) => void;
type RendererListener = (event: unknown, ...args: unknown[]) => void;

export class FakeIpcMain implements IpcMainLike {
  readonly listeners = new Map<string, Set<MainListener>>();
  on(channel: string, l: MainListener): this {
    const set = this.listeners.get(channel) ?? new Set();
    set.add(l);
    this.listeners.set(channel, set);
    return this;
  }
  removeListener(channel: string, l: MainListener): this {
    this.listeners.get(channel)?.delete(l);
    return this;
  }
  dispatch(event: IpcMainEventLike, channel: string, args: unknown[]): void {
    for (const l of this.listeners.get(channel) ?? []) l(event, ...structuredClone(args));
  }
}

let nextId = 1;

/** One window: its webContents (main side) and its ipcRenderer (page side). */
export class FakeWindow {
  readonly id = nextId++;
  private destroyed = false;
  private readonly onDestroyed: (() => void)[] = [];
  private readonly rendererListeners = new Map<string, Set<RendererListener>>();
  readonly main: FakeIpcMain;
  url: string;

  constructor(main: FakeIpcMain, url: string) {
    this.main = main;
    this.url = url;
  }

  readonly webContents: IpcSenderLike = {
    id: this.id,
    send: (channel: string, ...args: unknown[]) => {
      if (this.destroyed) throw new Error('destroyed');
      const cloned = structuredClone(args);
      // Electron delivers asynchronously.
      queueMicrotask(() => {
        for (const l of this.rendererListeners.get(channel) ?? []) l({}, ...cloned);
      });
    },
    isDestroyed: () => this.destroyed,
    once: (_e: 'destroyed', l: () => void) => this.onDestroyed.push(l),
  };

  readonly ipcRenderer: IpcRendererLike = {
    send: (channel: string, ...args: unknown[]) => {
      queueMicrotask(() => this.main.dispatch({ sender: this.webContents, senderFrame: { url: this.url } }, channel, args));
    },
    on: (channel: string, l: RendererListener) => {
      const set = this.rendererListeners.get(channel) ?? new Set();
      set.add(l);
      this.rendererListeners.set(channel, set);
    },
    removeListener: (channel: string, l: RendererListener) => {
      this.rendererListeners.get(channel)?.delete(l);
    },
  };

  destroy(): void {
    this.destroyed = true;
    for (const l of this.onDestroyed) l();
  }
}
