/** The Electron binary's path, or undefined where it is not installed. */
export function electronBinary(require?: NodeJS.Require): string | undefined;

export type Launch = { mode: 'electron' } | { mode: 'server'; reason: string };

/** The desktop app, or the server with the reason why not. */
export function chooseLaunch(input: {
  electron: string | undefined;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
}): Launch;

/** Whether dist/ lacks the app or is older than its sources. */
export function buildNeeded(dir?: string): boolean;

/** Electron's command line for the app (the server's V8 flags in --js-flags). */
export function electronArgs(input: { asRoot: boolean; app: string; args: readonly string[] }): string[];
