import type { BrowserWindowConstructorOptions } from 'electron';

export interface WindowInput {
  /** Absolute path of the bundled preload script (CommonJS). */
  preload: string;
  /** Developer tools: on in development, off in the installed app. */
  devTools: boolean;
}

/**
 * The window's options, following Electron's security checklist: isolated, sandboxed renderer without Node, web
 * security on, no <webview>, no navigation by dropping a file, and no spell-check dictionaries fetched from the
 * network (the window talks to the local server only). Sized for 800×600 up to full screen.
 */
export function windowOptions(input: WindowInput): BrowserWindowConstructorOptions {
  return {
    title: 'Docwright',
    width: 1200,
    height: 820,
    minWidth: 800,
    minHeight: 600,
    show: false,
    backgroundColor: '#ffffff',
    webPreferences: {
      preload: input.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: input.devTools,
    },
  };
}
