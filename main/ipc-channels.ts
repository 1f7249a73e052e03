/** The names of the IPC channels between the preload and the main process: one place, used by both sides. */
export const IPC = {
  saveFile: 'docwright:save-file',
  saveAllToFolder: 'docwright:save-all-to-folder',
  openFiles: 'docwright:open-files',
  revealInFolder: 'docwright:reveal-in-folder',
} as const;

export type IpcChannel = (typeof IPC)[keyof typeof IPC];
