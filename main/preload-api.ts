// The API the preload script exposes as `window.docwright` in the desktop app. The renderer imports these types
// only (`import type`); in a browser `window.docwright` is undefined and the UI uses downloads and <input type=file>.

/** A file to save, e.g. a converted .docx. */
export interface FileToSave {
  /** The name to propose (path separators and characters no file system accepts are replaced). */
  suggestedName: string;
  bytes: Uint8Array;
}

/** A file of a batch saved into one folder. */
export interface FolderFile {
  name: string;
  bytes: Uint8Array;
}

/** Where a file was saved. */
export interface SavedFile {
  path: string;
}

/** Where a batch was saved: the folder and each file's path, in the order given (names made unique). */
export interface SavedFolder {
  folder: string;
  paths: string[];
}

/** A text file the user picked. */
export interface OpenedFile {
  name: string;
  text: string;
  /** The images the markdown names, from its folder (main/opened-images.ts), by path relative to it. */
  images?: { path: string; bytes: Uint8Array }[];
}

/** `window.docwright`: native dialogs of the desktop app. */
export interface DocwrightDesktopApi {
  readonly isDesktop: true;
  /** Shows a Save dialog and writes the bytes; null when the user cancels. */
  saveFile(file: FileToSave): Promise<SavedFile | null>;
  /** Asks for a folder and writes every file into it without overwriting existing ones; null when cancelled. */
  saveAllToFolder(files: FolderFile[]): Promise<SavedFolder | null>;
  /** Shows an Open dialog for markdown and text files; [] when cancelled. */
  openFiles(): Promise<OpenedFile[]>;
  /** Shows a file this app saved in the OS's file manager. */
  revealInFolder(path: string): Promise<void>;
}

declare global {
  interface Window {
    /** Present only in the desktop app. */
    docwright?: DocwrightDesktopApi;
  }
}
