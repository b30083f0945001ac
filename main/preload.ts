import { contextBridge, ipcRenderer } from 'electron';
import { IPC, type PickedFile } from './ipc-channels.js';

/**
 * The only bridge the sandboxed renderer gets: a few named methods, each one IPC call. The renderer never
 * sees ipcRenderer itself, so it cannot send to channels the main process did not choose to answer.
 */
const api = {
  server: (): Promise<{ url: string; key: string }> => ipcRenderer.invoke(IPC.server),
  openFiles: (): Promise<PickedFile[]> => ipcRenderer.invoke(IPC.openFiles),
  saveExport: (jobId: string): Promise<string> => ipcRenderer.invoke(IPC.saveExport, jobId),
  revealFile: (path: string): Promise<void> => ipcRenderer.invoke(IPC.revealFile, path),
} satisfies Record<string, (...args: never[]) => Promise<unknown>>;

contextBridge.exposeInMainWorld('lectern', api);
export type LecternBridge = typeof api;
