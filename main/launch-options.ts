import { join } from 'node:path';
import { dataFolder } from '../server/store/data-folder.ts';
import { defaultDataDir } from '../server/store/paths.ts';

/** How this launch runs: from the command line and the environment. */
export interface LaunchOptions {
  /** The server's data directory: DOCWRIGHT_HOME, else the OS's application-data folder (as `docwright serve`). */
  dataDir: string;
  /** Port to listen on; undefined uses the `port` setting (47823 by default), 0 a free port. */
  port: number | undefined;
  /**
   * Electron's own profile folder (cookies, cache, logs on Linux and Windows). Inside DOCWRIGHT_HOME when that is
   * set, so that each data directory has its own single-instance lock; else `<appData>/Docwright`.
   */
  userDataDir: string;
}

/** Thrown for a command line the app cannot start with. */
export class LaunchError extends Error {
  override name = 'LaunchError';
}

function parsePort(text: string | undefined): number {
  const port = Number(text);
  if (text === undefined || !/^\d{1,5}$/.test(text) || port > 65535)
    throw new LaunchError(`--port takes a number from 0 to 65535, not ${text ?? 'nothing'}.`);
  return port;
}

/** Reads `--port N` / `--port=N` (other arguments, Electron's and Chromium's, are left alone) and the environment. */
export function launchOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  appData: string,
  platform: NodeJS.Platform = process.platform,
): LaunchOptions {
  let port: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--port') port = parsePort(argv[++i]);
    else if (arg?.startsWith('--port=')) port = parsePort(arg.slice('--port='.length));
  }
  const home = env.DOCWRIGHT_HOME;
  return {
    dataDir: defaultDataDir(env, platform),
    port,
    userDataDir: home ? dataFolder(home).electronProfile : join(appData, 'Docwright'),
  };
}
