/** Electron's installer script, or null where the electron package is absent (an installed docwright). */
export function electronInstaller(require?: NodeJS.Require): string | null;

/** Runs Electron's installer; returns the one line to print, or undefined when there is nothing to say. */
export function installElectron(installer?: string | null, env?: NodeJS.ProcessEnv): string | undefined;
