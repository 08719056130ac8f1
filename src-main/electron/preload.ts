// The preload: exposes the protocol client to the page as `window.rlmHost` and nothing
// else (no ipcRenderer, no generic invoke). Sandboxed preloads cannot import local files at
// run time, so this is bundled to preload.cjs with its one import (../transport/ipc.ts).
import { contextBridge, ipcRenderer } from 'electron';
import { createRendererBridge } from '../transport/ipc.ts';

contextBridge.exposeInMainWorld('rlmHost', createRendererBridge(ipcRenderer));
