// The desktop app's server without Electron, for tests: started as main/main.ts starts it (startServer in this
// process), its SVG render children started by main/render-launcher.ts through the utilityProcess stand-in
// (utility-process.ts) instead of Electron's. Run as `node --import tsx desktop-server.ts --port 0 --data-dir DIR`
// (startServe's `entry`: DESKTOP_SERVER); prints the line `docwright serve` prints, and closes on SIGTERM or SIGINT.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { utilityRenderLauncher } from '../../main/render-launcher.ts';
import { renderChildEntry } from '../../server/convert-pool/render-child.ts';
import { startServer } from '../../server/serve.ts';
import { forkUtility } from './utility-process.ts';

/** startServe's `entry` for this server. */
export const DESKTOP_SERVER = ['--import', 'tsx', fileURLToPath(import.meta.url)];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: 'string' }, 'data-dir': { type: 'string' } } });
  const dataDir = values['data-dir'];
  if (dataDir === undefined) throw new Error('desktop-server.ts needs --data-dir');
  const running = await startServer({
    dataDir,
    port: Number(values.port ?? '0'),
    renderLauncher: utilityRenderLauncher(forkUtility, renderChildEntry()),
  });
  console.log(`Docwright is running at ${running.discovery.url}`);
  const stop = (): void => {
    void running.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
