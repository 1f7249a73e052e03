// Runs loadSecret in a separate process so a test can give it its own environment (e.g. no reachable D-Bus).
import { createHash } from 'node:crypto';
import { loadSecret } from '../../server/auth/secret.ts';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: load-secret-child.ts DATA_DIR');
const { secret, store, warning } = await loadSecret(dataDir);
const fingerprint = createHash('sha256').update(secret).digest('hex');
process.stdout.write(JSON.stringify({ store, warning, fingerprint }));
