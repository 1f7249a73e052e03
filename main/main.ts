// The Electron shell: starts the same server as `docwright serve` in this process, shows it in a hardened window,
// and keeps it running in the tray when the window closes. Every decision lives in a pure module next to this one.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, clipboard, dialog, Menu, nativeImage, session, Tray, utilityProcess } from 'electron';
import { renderChildEntry } from '../server/convert-pool/render-child.ts';
import { startServer, type RunningServer } from '../server/serve.ts';
import { hardenContents, hardenSession, type TrustedServer } from './harden.ts';
import { registerIpc } from './ipc.ts';
import { launchOptions, type LaunchOptions } from './launch-options.ts';
import { utilityRenderLauncher } from './render-launcher.ts';
import { FileLog } from './log.ts';
import { trayMenuTemplate, trayTooltip } from './tray-menu.ts';
import { windowOptions } from './window-options.ts';

// The bundle's folder (dist/main): the preload script and the icons sit next to it.
const here = dirname(fileURLToPath(import.meta.url));

let window: BrowserWindow | undefined;
let tray: Tray | undefined;
let running: RunningServer | undefined;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Shows the window, making it again if it was closed (the server kept running in the tray). */
function showWindow(): void {
  const server = running;
  if (!server) return;
  if (window && !window.isDestroyed()) {
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    return;
  }
  const created = new BrowserWindow({
    ...windowOptions({ preload: join(here, 'preload.cjs'), devTools: !app.isPackaged }),
    icon: join(here, 'icon.png'),
  });
  window = created;
  created.once('ready-to-show', () => created.show());
  created.on('closed', () => {
    if (window === created) window = undefined;
  });
  // A session link (each works once) redirects to the UI at `/#session=<id>`; the page keeps the id in this window's
  // sessionStorage and sends it as a header (no cookie). A window made again after closing gets a new link.
  void created.loadURL(server.newUiLink());
}

function createTray(apiUrl: string, log: FileLog): void {
  try {
    tray = new Tray(nativeImage.createFromPath(join(here, 'tray.png')));
    tray.setToolTip(trayTooltip(apiUrl));
    tray.setContextMenu(
      Menu.buildFromTemplate(
        trayMenuTemplate(apiUrl, {
          open: showWindow,
          copyApiUrl: () => clipboard.writeText(apiUrl),
          quit: () => app.quit(),
        }),
      ),
    );
    tray.on('click', showWindow);
  } catch (error) {
    // Some Linux desktops have no tray: a second launch then brings the window back.
    log.error('No tray icon', error);
  }
}

async function run(options: LaunchOptions, log: FileLog): Promise<void> {
  app.on('second-instance', () => showWindow());
  app.on('activate', () => showWindow());
  // Closing the window keeps the API running in the tray; "Quit" ends both.
  app.on('window-all-closed', () => log.info('Window closed; the API keeps running in the tray'));
  let stopped = false;
  app.on('will-quit', (event) => {
    if (!running || stopped) return;
    event.preventDefault();
    const server = running;
    void server
      .close()
      .catch((error: unknown) => log.error('The server did not stop cleanly', error))
      .finally(() => {
        stopped = true;
        log.info('Stopped');
        app.quit();
      });
  });

  await app.whenReady();
  try {
    running = await startServer({
      dataDir: options.dataDir,
      ...(options.port === undefined ? {} : { port: options.port }),
      // SVGs render in utility processes the pool kills (the installed binary cannot run as Node; from a checkout
      // the same, so `npm start` runs what ships).
      renderLauncher: utilityRenderLauncher(
        (modulePath, args, forkOptions) => utilityProcess.fork(modulePath, args, forkOptions),
        renderChildEntry(),
      ),
    });
  } catch (error) {
    log.error('The server did not start', error);
    dialog.showErrorBox('Docwright could not start', message(error));
    app.exit(1);
    return;
  }
  const { discovery } = running;
  for (const warning of running.warnings) log.warn(warning);
  log.info(`Server at ${discovery.url} (certificate ${discovery.fingerprint ?? 'none'}), data in ${options.dataDir}`);
  if (discovery.fingerprint === null) throw new Error('The embedded server must speak HTTPS.');
  const server: TrustedServer = { origin: new URL(discovery.url).origin, fingerprint: discovery.fingerprint };
  hardenSession(session.defaultSession, server, log);
  app.on('web-contents-created', (_event, contents) => hardenContents(contents, server, log));
  registerIpc({ serverOrigin: server.origin, window: () => window, log });
  createTray(discovery.url, log);
  showWindow();
}

let options: LaunchOptions | undefined;
try {
  options = launchOptions(process.argv.slice(1), process.env, app.getPath('appData'));
} catch (error) {
  dialog.showErrorBox('Docwright could not start', message(error));
  app.exit(2);
}
if (options) {
  app.setName('Docwright');
  app.setPath('userData', options.userDataDir);
  app.setAppLogsPath();
  app.enableSandbox();
  if (!app.requestSingleInstanceLock()) {
    // Another Docwright runs on this data directory: it shows its window (second-instance) and this one leaves.
    app.quit();
  } else {
    const log = new FileLog(app.getPath('logs'));
    log.info(`Docwright ${app.getVersion()} on Electron ${process.versions.electron} starting`);
    run(options, log).catch((error: unknown) => {
      log.error('Start failed', error);
      dialog.showErrorBox('Docwright could not start', message(error));
      app.exit(1);
    });
  }
}
