// Advice that names a command ("start one with: docwright serve") names one that works where the user runs
// Docwright: in a checkout `docwright` is not on the PATH unless linked, and npm says how it was started (docs/cli.md,
// "Advice from a checkout").

/**
 * `docwright ARGS` as the user can run it here. In Docwright's checkout, started by `npm start`, `npx docwright` or
 * `npm run docwright`: `npm start -- ARGS` for the server, the same script for the rest under `npm run docwright`,
 * else `npx docwright ARGS`. Under `npx docwright` elsewhere (a project that depends on docwright): `npx docwright
 * ARGS`. Else (an installed or linked docwright, and a docwright that another npm script or npx command runs, such
 * as the tests): `docwright ARGS`.
 */
export function docwrightCommand(args: string, env: NodeJS.ProcessEnv = process.env): string {
  // npx names the command it runs as the script, shell-quoted: `npx docwright open` as 'docwright'.
  const npx = env.npm_lifecycle_event === 'npx' && env.npm_lifecycle_script?.replace(/^'(.*)'$/, '$1') === 'docwright';
  const started =
    env.npm_package_name === 'docwright' &&
    (npx || env.npm_lifecycle_event === 'start' || env.npm_lifecycle_event === 'docwright');
  const serve = /^serve(?:\s+(.*))?$/.exec(args);
  if (started && serve) return serve[1] ? `npm start -- ${serve[1]}` : 'npm start';
  if (started && env.npm_lifecycle_event === 'docwright') return `npm run docwright -- ${args}`;
  return started || npx ? `npx docwright ${args}` : `docwright ${args}`;
}
