// Opens a data directory (migrating a schema-1 db.json) and says each migration step on stdout; with a step named
// in argv[3] it stops there and waits to be killed.
import { Store } from '../../server/store/store.ts';

const [dataDir, pauseAt] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: migrate-child.ts DATA_DIR [STEP]');
const store = await Store.open(dataDir, {
  migrationProbe: async (step) => {
    process.stdout.write(`step ${step}\n`);
    if (step === pauseAt) await new Promise(() => setInterval(() => undefined, 1000));
  },
});
store.close();
process.stdout.write('opened\n');
