// `docwright template styles`: a template's styles as Word's UI lists them (docs/cli.md, "Templates").

/** Word's order of style types in its styles pane: paragraph styles first. */
const TYPE_ORDER = ['paragraph', 'character', 'table', 'numbering'];

/** Word's built-in styles that it stores in lower case (ECMA-376's latent style names) and shows capitalised. */
const LOWER_CASE_BUILT_INS = new Set([
  'normal indent',
  'footnote text',
  'annotation text',
  'header',
  'footer',
  'index heading',
  'caption',
  'table of figures',
  'envelope address',
  'envelope return',
  'footnote reference',
  'annotation reference',
  'line number',
  'page number',
  'endnote reference',
  'endnote text',
  'table of authorities',
  'macro',
  'toa heading',
  'annotation subject',
]);

/**
 * A style's name as Word's UI shows it: its built-ins capitalised ("heading 1" → "Heading 1", "toc 1" → "TOC 1",
 * "table of figures" → "Table of Figures"), every other name as written. Only the case changes, so the name still
 * matches in a mapping (docs/mappings.md).
 */
export function wordName(name: string): string {
  if (!LOWER_CASE_BUILT_INS.has(name) && !/^(heading|toc|index) [1-9]$/.test(name)) return name;
  return name
    .split(' ')
    .map((word, i) =>
      word === 'toc' || word === 'toa'
        ? word.toUpperCase()
        : i > 0 && word === 'of'
          ? word
          : word.charAt(0).toUpperCase() + word.slice(1),
    )
    .join(' ');
}

/** A style as `template styles` lists it. */
export interface ListedStyle {
  name: string;
  word_name: string;
  id: string;
  type: string;
}

/** The styles sorted as Word's styles pane groups them: by type, then by the name Word shows (numbers in order). */
export function listStyles(styles: readonly { name: string; id: string; type: string }[]): ListedStyle[] {
  const rank = (type: string) => (TYPE_ORDER.includes(type) ? TYPE_ORDER.indexOf(type) : TYPE_ORDER.length);
  return styles
    .map(({ name, id, type }) => ({ name, word_name: wordName(name), id, type }))
    .sort((a, b) => rank(a.type) - rank(b.type) || a.word_name.localeCompare(b.word_name, 'en', { numeric: true }));
}

/** One line per style: its type, the name Word shows, and its id where that is more than the name without spaces. */
export function styleLines(styles: readonly ListedStyle[]): string[] {
  return styles.map((s) => {
    const sameId = s.id.toLowerCase() === s.word_name.replace(/\s+/g, '').toLowerCase();
    return `${s.type.padEnd(10)} ${s.word_name}${sameId ? '' : `  (id ${s.id})`}`;
  });
}
