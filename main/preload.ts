import { contextBridge, ipcRenderer } from 'electron';

/** The only bridge the sandboxed renderer gets. */
const api = {
  server: (): Promise<{ url: string; key: string }> => ipcRenderer.invoke('lectern:server'),
} satisfies Record<string, (...args: never[]) => unknown>;

contextBridge.exposeInMainWorld('lectern', api);
export type LecternBridge = typeof api;
