import { main } from './cli.ts';

// A reader that went away (`docwright --help | head -1`) ends the command quietly with status 0: the rest of the output
// was not wanted, and a `set -o pipefail` script should not fail for it (docs/cli.md, "Exit status").
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
