// The main-process side of the preload API: native dialogs and file writes. Every handler first checks that the
// message comes from the top frame of our window showing the local server (sender.ts).
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { app, dialog, ipcMain, shell, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import {
  checkOpenSize,
  IpcInputError,
  OPEN_FILTERS,
  parseFileToSave,
  parseFolderFiles,
  parsePath,
  saveFilters,
  uniqueName,
} from './files.ts';
import { IPC, type IpcChannel } from './ipc-channels.ts';
import { openedImages } from './opened-images.ts';
import type { FileLog } from './log.ts';
import type { OpenedFile, SavedFile, SavedFolder } from './preload-api.ts';
import { isTrustedSender } from './sender.ts';

export interface IpcContext {
  serverOrigin: string;
  /** The app's window, when open. */
  window(): BrowserWindow | undefined;
  log: FileLog;
}

/** Writes a new file in a folder, never over an existing one (`name (2).ext` then). */
async function writeNew(folder: string, name: string, bytes: Uint8Array): Promise<string> {
  for (;;) {
    const path = join(
      folder,
      uniqueName(name, (candidate) => existsSync(join(folder, candidate))),
    );
    try {
      await writeFile(path, bytes, { flag: 'wx' });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** Registers the handlers of the preload API. */
export function registerIpc(context: IpcContext): void {
  const { log } = context;
  // Only files saved in this session can be shown in the file manager.
  const saved = new Set<string>();

  const handle = <T>(channel: IpcChannel, handler: (window: BrowserWindow, args: unknown[]) => Promise<T>) => {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, ...args: unknown[]) => {
      const window = context.window();
      const frame = event.senderFrame;
      const trusted =
        window !== undefined &&
        !window.isDestroyed() &&
        isTrustedSender(
          { frameUrl: frame?.url, isTopFrame: frame !== null && frame.parent === null, webContentsId: event.sender.id },
          { serverOrigin: context.serverOrigin, webContentsId: window.webContents.id },
        );
      if (!trusted) {
        log.warn(`Refused ${channel} from ${frame?.url ?? 'a frame that is gone'}`);
        throw new Error('Refused: the message did not come from the Docwright window.');
      }
      try {
        return await handler(window, args);
      } catch (error) {
        if (!(error instanceof IpcInputError)) log.error(`${channel} failed`, error);
        throw error;
      }
    });
  };

  handle(IPC.saveFile, async (window, [file]): Promise<SavedFile | null> => {
    const { name, bytes } = parseFileToSave(file);
    const choice = await dialog.showSaveDialog(window, {
      title: 'Save the document',
      defaultPath: join(app.getPath('downloads'), name),
      filters: saveFilters(name),
      properties: ['createDirectory', 'showOverwriteConfirmation'],
    });
    if (choice.canceled || !choice.filePath) return null;
    await writeFile(choice.filePath, bytes);
    saved.add(choice.filePath);
    log.info(`Saved ${bytes.byteLength} bytes to ${choice.filePath}`);
    return { path: choice.filePath };
  });

  handle(IPC.saveAllToFolder, async (window, [files]): Promise<SavedFolder | null> => {
    const batch = parseFolderFiles(files);
    const choice = await dialog.showOpenDialog(window, {
      title: `Save ${batch.length} ${batch.length === 1 ? 'document' : 'documents'} into a folder`,
      buttonLabel: 'Save here',
      defaultPath: app.getPath('downloads'),
      properties: ['openDirectory', 'createDirectory'],
    });
    const folder = choice.filePaths[0];
    if (choice.canceled || folder === undefined) return null;
    const paths: string[] = [];
    for (const file of batch) {
      const path = await writeNew(folder, file.name, file.bytes);
      saved.add(path);
      paths.push(path);
    }
    log.info(`Saved ${paths.length} files into ${folder}`);
    return { folder, paths };
  });

  handle(IPC.openFiles, async (window): Promise<OpenedFile[]> => {
    const choice = await dialog.showOpenDialog(window, {
      title: 'Open markdown files',
      properties: ['openFile', 'multiSelections'],
      filters: OPEN_FILTERS,
    });
    if (choice.canceled) return [];
    const decoder = new TextDecoder('utf-8');
    const files: OpenedFile[] = [];
    for (const path of choice.filePaths) {
      const info = await stat(path);
      if (!info.isFile()) continue;
      checkOpenSize(basename(path), info.size);
      const text = decoder.decode(await readFile(path));
      files.push({ name: basename(path), text, images: openedImages(path, text) });
    }
    return files;
  });

  handle(IPC.revealInFolder, async (_window, [path]): Promise<void> => {
    const target = parsePath(path);
    if (!saved.has(target))
      throw new IpcInputError('Only documents saved from this window can be shown in their folder.');
    shell.showItemInFolder(target);
  });
}
