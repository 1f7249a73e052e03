/**
 * The server under load, in a process of its own (so the load generator does not share its event loop):
 *   node [the server's flags, bin/server-flags.mjs] --import tsx bench/load-server.ts DATA_DIR
 * Starts the real HTTPS server on a free loopback port (startServer, as `docwright serve` does) with the file secret
 * (DOCWRIGHT_KEYCHAIN=off), creates an API key through Services, prints one JSON line { url, key, cert, pid } and
 * runs until SIGTERM.
 */
import { loadSecret } from '../server/auth/secret.ts';
import { startServer } from '../server/serve.ts';

process.env.DOCWRIGHT_KEYCHAIN = 'off';
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: node --import tsx bench/load-server.ts DATA_DIR');
const server = await startServer({ dataDir, port: 0 });
const { secret } = await loadSecret(dataDir);
const { key } = await server.app.services.createApiKey('load test', secret);
// Workers start now, as they would be warm on a server that has converted before.
server.app.services.convertPool.warm();
process.stdout.write(
  `${JSON.stringify({ url: server.discovery.url, key, cert: server.discovery.cert_path, pid: process.pid, workers: server.app.services.convertPool.size })}\n`,
);
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
