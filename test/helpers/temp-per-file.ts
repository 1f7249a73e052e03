// Every test file gets its own folder as the system temp directory (TMPDIR, which os.tmpdir() and child processes
// read), removed with everything in it when the file ends: a test's mkdtemp, a server's data directory or a
// crashed child's leftovers can never pile up in /tmp. test/helpers/global-setup.ts checks that none survives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const prefix = process.env.DOCWRIGHT_TEST_TMP_PREFIX ?? 'dw-test-';
const system = process.env.DOCWRIGHT_TEST_SYSTEM_TMP ?? tmpdir();
const folder = mkdtempSync(join(system, prefix));
process.env.TMPDIR = folder;

afterAll(() => {
  rmSync(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});
