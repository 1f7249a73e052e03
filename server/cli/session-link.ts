import { dataFolder } from '../store/data-folder.ts';
import { CliError } from './errors.ts';
import { docwrightCommand } from './advice.ts';
import { callServer, findRunningServer } from './running-server.ts';

/**
 * How the session link reaches its owner without reaching a log: printed only to an interactive terminal; else (a
 * service's journal, a pipe, a file) written to `ui-link` in the data directory, readable only by the user, and
 * only that file's path is printed. Returns the lines to print (the file is written first).
 */
export async function sessionLinkLines(
  dataDir: string,
  link: string,
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- typed boolean, undefined when not a terminal
  terminal = Boolean(process.stdout.isTTY),
): Promise<string[]> {
  if (terminal)
    return [
      `Open the app:  ${link}`,
      `               (opens the app once, within 5 minutes; keep it private; a new one: ${docwrightCommand('open')})`,
    ];
  const folder = dataFolder(dataDir);
  const file = folder.uiLinkFile;
  try {
    await folder.writeUiLink(`${link}\n`);
  } catch (error) {
    return [
      `Open the app:  the link could not be written to ${file} (${(error as Error).message}); get one with: ${docwrightCommand('open')}`,
    ];
  }
  return [
    `Open the app:  the link in ${file}`,
    '               (not printed here: this output is no terminal and may be logged; it opens the app once, within 5 minutes)',
  ];
}

/** Prints what sessionLinkLines says. */
export async function showSessionLink(
  dataDir: string,
  link: string,
  print: (line: string) => void,
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- typed boolean, undefined when not a terminal
  terminal = Boolean(process.stdout.isTTY),
): Promise<void> {
  for (const line of await sessionLinkLines(dataDir, link, terminal)) print(line);
}

/** A fresh session link from the running server of this data directory (`docwright open`). */
export async function newSessionLink(dataDir: string): Promise<string> {
  const server = findRunningServer(dataDir);
  if (!server)
    throw new CliError(
      `no Docwright server is running for this data directory; start one with: ${docwrightCommand('serve')}`,
    );
  const res = await callServer(server, 'POST', '/api/settings/session-link');
  const path = (res.body as { path?: unknown } | null)?.path;
  if (res.status !== 200 || typeof path !== 'string')
    throw new CliError(`the server refused a new session link (${res.status})`);
  return new URL(path, server.discovery.url).href;
}
