// What an element fixture converts with besides its markdown: test/fixtures/elements/<case>/options.json names a
// bibliography (a path relative to the case's folder, e.g. the shared test/fixtures/citations/refs.bib), a style and
// the dialect.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BibliographyInput, Dialect } from '../../server/convert/index.ts';

/** The conversion input of the fixture whose input.md is at `inputPath`, beyond its markdown. */
export function fixtureOptions(inputPath: string): {
  bibliography?: BibliographyInput;
  csl?: string;
  dialect?: Dialect;
} {
  const dir = dirname(inputPath);
  const path = join(dir, 'options.json');
  if (!existsSync(path)) return {};
  const options = JSON.parse(readFileSync(path, 'utf8')) as { bibliography?: string; csl?: string; dialect?: Dialect };
  return {
    ...(options.bibliography ? { bibliography: { text: readFileSync(join(dir, options.bibliography), 'utf8') } } : {}),
    ...(options.csl ? { csl: options.csl } : {}),
    ...(options.dialect ? { dialect: options.dialect } : {}),
  };
}
