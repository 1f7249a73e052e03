// The desktop shell's small native API (Electron preload: `window.docwright`), absent in a plain browser.
import type { DocwrightDesktopApi } from '../../../main/preload-api.ts';

/** The shell's API when running inside the Docwright desktop app, else undefined. */
export function desktop(): DocwrightDesktopApi | undefined {
  const api = window.docwright;
  return api && api.isDesktop === true ? api : undefined;
}
