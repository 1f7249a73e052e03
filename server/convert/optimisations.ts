/**
 * Speed-ups that must never change an output can be switched off (DOCWRIGHT_UNOPTIMISED=1) so a test can convert
 * every document both ways and compare the bytes (test/convert/optimisations.test.ts).
 */
export function optimisationsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.DOCWRIGHT_UNOPTIMISED !== '1';
}
