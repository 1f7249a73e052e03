// The whole run, once: says which Node runs the tests (CI's log proves the Node the product runs on), and fails the
// run if a test file's temporary folder survives it (test/helpers/temp-per-file.ts makes and removes them).
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The prefix of this run's per-file temporary folders in the system temp directory. */
export const RUN_PREFIX_ENV = 'DOCWRIGHT_TEST_TMP_PREFIX';

export default function setup(): () => void {
  process.stdout.write(`Tests run on Node ${process.version} (${process.execPath})\n`);
  const system = tmpdir();
  const prefix = `dw-test-${randomBytes(4).toString('hex')}-`;
  process.env[RUN_PREFIX_ENV] = prefix;
  process.env.DOCWRIGHT_TEST_SYSTEM_TMP = system;
  return () => {
    const left = readdirSync(system).filter((name) => name.startsWith(prefix));
    if (left.length === 0) return;
    // What a leftover folder holds names the test that left it (a process that outlived its file and wrote again).
    const listing = left.flatMap((name) =>
      (readdirSync(join(system, name), { recursive: true }) as string[]).slice(0, 20).map((f) => `${name}/${f}`),
    );
    for (const name of left) rmSync(join(system, name), { recursive: true, force: true });
    // A folder with files in it is a clean-up a test file missed: the run fails. An empty one was made again by a
    // process after its file's clean-up (seen twice in full runs on 2026-11-27, never with the files alone): said,
    // not failed, until the process is found (the closing note of that day).
    const message = `tests left ${left.length} folder(s) in ${system}: ${left.join(', ')} (removed now) holding: ${listing.join(', ') || 'nothing'}`;
    // tsx's own cache (`tsx-<uid>/…`), written by a process run from the sources (a server started with
    // `--import tsx`) as it loads a module late, is not a test's file: said, not failed, like an empty folder.
    if (listing.length === 0 || listing.every((path) => /^[^/]+\/tsx-\d+(\/|$)/.test(path))) {
      process.stderr.write(`warning: ${message}\n`);
      return;
    }
    // Vitest reports an error thrown here but still exits 0, so the exit code is set as well.
    process.exitCode = 1;
    throw new Error(`${message}; a test file did not finish its clean-up`);
  };
}
