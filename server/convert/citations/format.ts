import { ConvertInputError } from '../errors.ts';
import { CITATION_LIMITS, type CslItem } from './bibliography.ts';
import type { Citation, CiteItem } from './syntax.ts';

/** The CSL styles citation-js bundles (CC BY-SA 3.0, docs/captions-references.md); `apa` is the default. */
export const BUNDLED_STYLES = ['apa', 'vancouver', 'harvard1'] as const;
export const DEFAULT_STYLE = 'apa';

/** The citations and bibliography as citeproc-js formats them (CSL's HTML output, html.ts reads it into runs). */
export interface FormattedCitations {
  /** Each citation's text; a citation absent here stays as written (a key not in the bibliography). */
  texts: Map<Citation, string>;
  /** The bibliography's entries (the sources cited, in the style's order). */
  bibliography: string[];
  /** A note style's (CSL `class="note"`, Chicago's notes): each citation in the text is printed as a footnote. */
  note: boolean;
  /** `citation_missing: key` with the line of its first citation. */
  warnings: { warning: string; line: number | undefined }[];
}

/** A style: a bundled style's name, or a CSL file's XML. */
export type StyleInput = { name: string } | { xml: string };

/** What citeproc-js writes for an author-only citation in a style whose citations print no author. */
const NO_AUTHOR = /^\[NO_PRINTED_FORM\]$/;

/** citeproc-js's locales that citation-js bundles, by language. */
const LOCALES: Record<string, string> = { en: 'en-US', de: 'de-DE', fr: 'fr-FR', es: 'es-ES', nl: 'nl-NL' };

/** The CSL locale of a BCP 47 tag: one citation-js bundles (`de-AT` → `de-DE`), else American English. */
export function cslLocale(lang: string | undefined): string {
  if (lang === undefined) return 'en-US';
  const exact = Object.values(LOCALES).find((tag) => tag.toLowerCase() === lang.toLowerCase());
  return exact ?? LOCALES[lang.slice(0, 2).toLowerCase()] ?? 'en-US';
}

/** citeproc-js's cite item of one of ours. */
function citeItem(item: CiteItem, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: item.key,
    ...(item.prefix ? { prefix: `${item.prefix} ` } : {}),
    ...(item.suffix ? { suffix: /^[,;.]/.test(item.suffix) ? item.suffix : `, ${item.suffix}` } : {}),
    ...(item.locator !== undefined ? { locator: item.locator, label: item.label } : {}),
    ...(item.suppressAuthor ? { 'suppress-author': true } : {}),
    ...extra,
  };
}

/**
 * Formats the citations against the bibliography's items in a CSL style (citeproc-js through citation-js): the sources
 * are registered in the order they are first cited (numeric styles number them so), each citation is a cluster, a
 * narrative one (`@key`) the author alone then the rest (pandoc's "Doe (2020)"; in a numeric style the number). A citation with a key the
 * bibliography lacks is left out (it stays as written) and warned.
 */
export async function formatCitations(
  citations: readonly Citation[],
  items: readonly CslItem[],
  style: StyleInput,
  lang: string | undefined,
): Promise<FormattedCitations> {
  const known = new Map(items.map((item) => [item.id, item]));
  const warnings: FormattedCitations['warnings'] = [];
  const warned = new Set<string>();
  const usable: Citation[] = [];
  const order: string[] = [];
  const ordered = new Set<string>();
  for (const citation of citations) {
    const missing = citation.items.filter((item) => !known.has(item.key));
    for (const item of missing)
      if (!warned.has(item.key)) {
        warned.add(item.key);
        warnings.push({ warning: `citation_missing: ${item.key}`, line: citation.position?.start.line });
      }
    if (missing.length > 0) continue;
    usable.push(citation);
    for (const item of citation.items)
      if (!ordered.has(item.key)) {
        ordered.add(item.key);
        order.push(item.key);
      }
  }
  const note = !('name' in style) && /<(?:[\w.-]+:)?style\b[^>]*\sclass\s*=\s*["']note["']/.test(style.xml);
  if (usable.length === 0) return { texts: new Map(), bibliography: [], warnings, note };
  const citationJs = await import('./citation-js.ts');
  const { csl } = citationJs.citationJs();
  if (!('name' in style) && style.xml.length > CITATION_LIMITS.styleChars)
    throw new ConvertInputError(
      'bibliography_invalid',
      `the CSL style is ${Math.ceil(style.xml.length / 1024)} KB, more than ${CITATION_LIMITS.styleChars / 1024} KB`,
    );
  let engine;
  try {
    // A bundled style through citation-js, which keeps its engine (one per style and locale); a style sent as XML in
    // an engine of this conversion's own, let go with it: citation-js would keep every distinct one sent, for ever.
    engine =
      'name' in style
        ? csl.engine(
            order.map((id) => known.get(id)).filter((item) => item !== undefined),
            style.name,
            cslLocale(lang),
            'html',
          )
        : citationJs.ownEngine(style.xml, cslLocale(lang), (id) => known.get(id));
    engine.updateItems(order);
  } catch (error) {
    throw new ConvertInputError(
      'bibliography_invalid',
      `the CSL style could not be used (${(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''})`,
    );
  }
  const texts = new Map<Citation, string>();
  let made: ReturnType<typeof engine.makeBibliography>;
  // The style reads the sources' data only now (a numeric one reads names here first): data it cannot read (a name
  // that is no text) is the bibliography's fault, said as such, never the server's.
  try {
    for (const citation of usable) {
      const [first] = citation.items;
      if (citation.mode === 'narrative' && first) {
        // A style whose citations print no author (a numeric one) has none to give: the number alone, as pandoc does.
        const author = engine.makeCitationCluster([citeItem(first, { 'author-only': true })]).replace(NO_AUTHOR, '');
        const rest = engine.makeCitationCluster([citeItem(first, { 'suppress-author': true })]);
        texts.set(citation, author && rest ? `${author} ${rest}` : author || rest);
      } else texts.set(citation, engine.makeCitationCluster(citation.items.map((item) => citeItem(item))));
    }
    made = engine.makeBibliography();
  } catch (error) {
    throw new ConvertInputError(
      'bibliography_invalid',
      `the bibliography's data could not be formatted in this style (${(error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''})`,
    );
  }
  return { texts, bibliography: made === false ? [] : made[1], warnings, note };
}
