// The desktop shell's small native API (Electron preload: `window.docwright`), absent in a plain browser.
import type { DocwrightDesktopApi } from '../../../main/preload-api.ts';

/** The shell's API when running inside the Docwright desktop app, else undefined. */
export function desktop(): DocwrightDesktopApi | undefined {
  const api = window.docwright;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition, @typescript-eslint/no-unnecessary-boolean-literal-compare -- a global any script could set
  return api && api.isDesktop === true ? api : undefined;
}
