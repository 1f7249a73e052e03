// `docwright convert --bibliography FILE --csl FILE|NAME` (docs/cli.md, "Citations"): the user's own files, read by
// the command line from wherever they are (a shared Zotero export too), under the API's limits, and sent to the engine
// as the API's `bibliography` and `csl` fields are; they win over the front matter's, as pandoc's command line does.
import { statSync } from 'node:fs';
import type { BibliographyInput } from '../convert/citations/bibliography.ts';
import { CliError } from './errors.ts';
import { readBounded } from './files.ts';

/** What --bibliography and --csl give every conversion of the run. */
export interface CitationFiles {
  bibliography?: BibliographyInput[];
  csl?: string;
}

/** Reads the --bibliography files (their format by extension) and the --csl style (a file, else a bundled name). */
export async function readCitationFiles(
  bibliographies: string[] | undefined,
  csl: string | undefined,
): Promise<CitationFiles> {
  if (!bibliographies?.length && csl === undefined) return {};
  const { CITATION_LIMITS, formatOfPath } = await import('../convert/citations/bibliography.ts');
  const { BUNDLED_STYLES } = await import('../convert/citations/format.ts');
  const out: CitationFiles = {};
  if (bibliographies?.length) {
    let total = 0;
    out.bibliography = bibliographies.map((path) => {
      const format = formatOfPath(path);
      if (format === undefined)
        throw new CliError(
          `the bibliography ${path} is not a bibliography file: name a .bib, .bibtex, .biblatex, .json, .yaml or .yml file.`,
        );
      const bytes = readBounded(path, 'the bibliography', CITATION_LIMITS.bibliographyChars);
      total += bytes.byteLength;
      // All of them together within what the API takes as one bibliography.
      if (total > CITATION_LIMITS.bibliographyChars)
        throw new CliError(
          `the bibliographies together are larger than ${String(CITATION_LIMITS.bibliographyChars / 1024 / 1024)} MB (the API's limit on a bibliography).`,
        );
      return { text: bytes.toString('utf8'), format, name: path };
    });
  }
  if (csl !== undefined) {
    const bundled = (BUNDLED_STYLES as readonly string[]).includes(csl.replace(/\.csl$/i, ''));
    const file = statSync(csl, { throwIfNoEntry: false });
    if (file === undefined && bundled) out.csl = csl.replace(/\.csl$/i, '');
    else if (file === undefined && !/[/\\]|\.csl$/i.test(csl))
      throw new CliError(`the CSL style ${csl} is neither a file nor a bundled style (${BUNDLED_STYLES.join(', ')}).`);
    else {
      const xml = readBounded(csl, 'the CSL style', CITATION_LIMITS.styleChars).toString('utf8');
      if (!xml.trimStart().startsWith('<')) throw new CliError(`the CSL style ${csl} is not a CSL style (its XML).`);
      out.csl = xml;
    }
  }
  return out;
}
