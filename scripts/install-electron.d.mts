/** Electron's installer script, or null where the electron package is absent (an installed docwright). */
export function electronInstaller(require?: NodeJS.Require): string | null;

/** Runs Electron's installer; returns the one line to print, or undefined when there is nothing to say. */
export function installElectron(installer?: string | null, env?: NodeJS.ProcessEnv): string | undefined;

/** Whether npm runs this lifecycle script because `npx docwright` links this very checkout into npx's cache. */
export function linkedByNpx(env?: NodeJS.ProcessEnv, dir?: string): boolean;
