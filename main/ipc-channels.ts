/** IPC channel names shared by the main process and the preload; nothing else crosses the bridge. */
export const IPC = {
  server: 'lectern:server',
  openFiles: 'lectern:open-files',
  saveExport: 'lectern:save-export',
  revealFile: 'lectern:reveal-file',
} as const;

/** A file the user picked in the native dialog, read by the main process for the sandboxed window. */
export interface PickedFile {
  name: string;
  data: Uint8Array;
}
