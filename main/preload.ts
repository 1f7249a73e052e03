// Runs in the sandboxed preload (bundled to CommonJS: sandboxed preloads cannot be ES modules). It exposes a small
// named API, never ipcRenderer itself.
import { contextBridge, ipcRenderer } from 'electron';
import { IPC } from './ipc-channels.ts';
import type { DocwrightDesktopApi, FileToSave, FolderFile, OpenedFile, SavedFile, SavedFolder } from './preload-api.ts';

const api: DocwrightDesktopApi = {
  isDesktop: true,
  saveFile: (file: FileToSave) =>
    ipcRenderer.invoke(IPC.saveFile, {
      suggestedName: file.suggestedName,
      bytes: file.bytes,
    }) as Promise<SavedFile | null>,
  saveAllToFolder: (files: FolderFile[]) =>
    ipcRenderer.invoke(
      IPC.saveAllToFolder,
      files.map((f) => ({ name: f.name, bytes: f.bytes })),
    ) as Promise<SavedFolder | null>,
  openFiles: () => ipcRenderer.invoke(IPC.openFiles) as Promise<OpenedFile[]>,
  revealInFolder: (path: string) => ipcRenderer.invoke(IPC.revealInFolder, path) as Promise<void>,
};

contextBridge.exposeInMainWorld('docwright', api);
