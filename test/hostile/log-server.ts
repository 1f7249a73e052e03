// A real server with its request logger on (startServer's `logger` option), for test/hostile/keys.test.ts: it logs
// to standard output as it would in production; the URL, session link and admin token go to a hand-off file the
// test reads, so that the captured output holds nothing but what the server logs. Usage: log-server.ts DIR HANDOFF
import { writeFileSync } from 'node:fs';
import { startServer } from '../../server/serve.ts';

const [dataDir, handoff] = process.argv.slice(2);
if (!dataDir || !handoff) throw new Error('usage: log-server.ts DATA_DIR HANDOFF_FILE');
const server = await startServer({ dataDir, port: 0, logger: true });
writeFileSync(
  handoff,
  JSON.stringify({
    url: server.discovery.url,
    uiLink: server.uiLink,
    adminToken: server.adminToken,
    certPath: server.discovery.cert_path,
  }),
);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
