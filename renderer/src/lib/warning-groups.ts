// Warnings grouped by kind for people: one line per kind with how many, what they were, the first line of the
// markdown they came from, and what to do. The API keeps its `code: detail` strings; this wording is the UI's.
import type { Conversion } from './api.ts';

export interface WarningGroup {
  code: string;
  /** Occurrences of all warnings of this kind. */
  count: number;
  /** The distinct details (tag names, style names, …). */
  details: string[];
  /** First line of the markdown a warning of this kind came from; null when none is tied to a line. */
  line: number | null;
  /** The whole thing in plain words, with what to do. */
  text: string;
}

type Detail = Conversion['warning_details'][number];

function split(warning: string): { code: string; detail: string } {
  const at = warning.indexOf(':');
  return at < 0 ? { code: warning, detail: '' } : { code: warning.slice(0, at), detail: warning.slice(at + 1).trim() };
}

/** A short list of names: the first three, then "…". */
function names(details: readonly string[], wrap: (name: string) => string = (name) => name): string {
  const shown = details.slice(0, 3).map(wrap).join(', ');
  return details.length > 3 ? `${shown}, …` : shown;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** The sentence for a group, first line included. */
function sentence(code: string, count: number, details: string[], line: number | null): string {
  const where = line === null ? '' : `; first on line ${line}`;
  const tags = names(details, (name) => `<${name}>`);
  switch (code) {
    case 'unsupported_html':
      return `${plural(count, 'HTML snippet', 'HTML snippets')} (${tags}${where}) ${count === 1 ? 'was' : 'were'} converted as plain text: the text is kept, the HTML formatting is not. Use markdown instead where the formatting matters.`;
    case 'dropped_html':
      return `${plural(count, 'HTML element', 'HTML elements')} (${tags}${where}) ${count === 1 ? 'was' : 'were'} left out: Word cannot show ${count === 1 ? 'it' : 'them'}. Replace ${count === 1 ? 'it' : 'them'} with text or an image placeholder if the content matters.`;
    case 'html_too_deep':
      return `HTML nested too deeply${line === null ? '' : ` (line ${line})`} was printed as text. Simplify its nesting.`;
    case 'image_placeholder':
      return `${plural(count, 'image', 'images')} (${names(details)}${where}) ${count === 1 ? 'is' : 'are'} shown as placeholder text: pictures are embedded only when their files come with the markdown. Drop the images with the file, or choose its folder.`;
    case 'image_missing':
      return `${plural(count, 'image', 'images')} (${names(details)}${where}) ${count === 1 ? 'was' : 'were'} not found beside the markdown and ${count === 1 ? 'is' : 'are'} shown as placeholder text. Drop the image files with it, or choose its folder.`;
    case 'remote_image':
      return `${plural(count, 'image', 'images')} on the web (${names(details)}${where}) ${count === 1 ? 'is' : 'are'} shown as placeholder text: Docwright never downloads anything. Save ${count === 1 ? 'it' : 'them'} beside the markdown and link ${count === 1 ? 'it' : 'them'} by file name.`;
    case 'image_outside_folder':
      return `${plural(count, 'image', 'images')} outside the markdown’s folder (${names(details)}${where}) ${count === 1 ? 'is' : 'are'} shown as placeholder text: only files in the folder (or below it) are embedded.`;
    case 'image_too_large':
    case 'image_limit_exceeded':
      return `${plural(count, 'image', 'images')} (${names(details)}${where}) ${count === 1 ? 'was' : 'were'} too large to embed and ${count === 1 ? 'is' : 'are'} shown as placeholder text: 10 MiB an image, 50 MiB together.`;
    case 'image_unsupported':
      return `${plural(count, 'image', 'images')} (${names(details)}${where}) could not be read as PNG, JPEG, GIF or SVG, or (an SVG) was too complex to draw safely, and ${count === 1 ? 'is' : 'are'} shown as placeholder text.`;
    case 'unsafe_link':
      return `${plural(count, 'link', 'links')} (${names(details)}${where}) ${count === 1 ? 'was' : 'were'} kept as text, not as a hyperlink: only http, https and mailto links are made clickable.`;
    case 'broken_anchor':
      return `${plural(count, 'link', 'links')} to a part of the document (${names(details)}${where}) ${count === 1 ? 'was' : 'were'} kept as text: no heading or anchor has that name. Heading names follow GitHub’s rules: lower case, spaces as hyphens, punctuation dropped.`;
    case 'page_break_in_note':
      return `${plural(count, 'page break', 'page breaks')} in a footnote${line === null ? '' : ` (line ${line})`} ${count === 1 ? 'was' : 'were'} left out: a footnote has no page of its own to break.`;
    case 'missing_style':
      return `The template has no style ${names(details, (name) => `“${name}”`)}; Word’s built-in formatting was used instead. Pick another style in the mapping, or add it to the template.`;
    case 'style_numbering_off': {
      const one = details.length === 1;
      const styles = names(details, (name) => `“${name.replace(/ \(.*$/, '')}”`);
      return `The template’s ${one ? 'style' : 'styles'} ${styles} ${one ? 'numbers its' : 'number their'} paragraphs by ${one ? 'itself' : 'themselves'}: the numbers were left off the code, quotes and paragraphs in ${one ? 'it' : 'them'}, as only lists and headings are numbered.`;
    }
    case 'list_depth_exceeded':
      return `Lists nest deeper than Word’s 9 levels (${names(details)} levels); deeper items were kept at level 9.`;
    case 'footnote_not_printed':
      return `${plural(count, 'footnote', 'footnotes')} (${names(details)}${where}) ${count === 1 ? 'was' : 'were'} not printed: never referenced, defined twice, or referenced only from another footnote.`;
    case 'front_matter_truncated':
      return `The front matter’s ${names(details)}; the rest was left out.`;
    case 'invalid_front_matter':
    case 'front_matter_ignored':
      return `The front matter could not be used (${names(details)}${where}); the document properties were left empty.`;
    case 'math_unsupported':
      return `${plural(count, 'formula', 'formulas')} (${names(details)}${where}) could not be read as TeX and ${count === 1 ? 'was' : 'were'} kept as written, in code formatting. Check the TeX (an unknown command, a missing brace) or write \\$ for a dollar sign.`;
    case 'unsupported_node':
      return `${plural(count, 'element', 'elements')} of an unknown kind (${names(details)}${where}) ${count === 1 ? 'was' : 'were'} kept as text.`;
    case 'template_external_removed':
      return `${plural(count, 'link', 'links')} to content outside the template (${names(details)}) ${count === 1 ? 'was' : 'were'} removed: Word would have fetched ${count === 1 ? 'it' : 'them'} whenever the document opened.`;
    case 'template_field_removed':
      return `${plural(count, 'field', 'fields')} that fetch outside content (${names(details)}) ${count === 1 ? 'was' : 'were'} replaced by the text ${count === 1 ? 'it' : 'they'} showed.`;
    case 'template_style_renamed':
      return `${plural(count, 'style id', 'style ids')} with unsafe characters ${count === 1 ? 'was' : 'were'} renamed (${names(details)}).`;
    case 'template_font_renamed':
      return `${plural(count, 'font name', 'font names')} with unsafe characters ${count === 1 ? 'was' : 'were'} cleaned (${names(details)}).`;
    case 'empty_document':
      return 'The file is empty: the document is a valid, empty one. Was it the right file?';
    case 'not_text':
      return 'The file is not text (it looks like binary data): the document holds what could be read as text. Was it the right file?';
    case 'invalid_utf8': {
      const replaced = Number.parseInt(details[0] ?? '', 10);
      const what = Number.isNaN(replaced) ? 'Some characters' : plural(replaced, 'character', 'characters');
      return `The file is not all UTF-8 text: ${what} could not be read and ${replaced === 1 ? 'was' : 'were'} replaced by “\u{FFFD}”. Save it as UTF-8 and convert it again.`;
    }
    default:
      return `${plural(count, 'warning', 'warnings')} “${code}” (${names(details)}${where}).`;
  }
}

/** The conversion's warnings grouped by kind, in the order the kinds first occur. */
export function groupWarnings(
  conversion: Pick<Conversion, 'warnings'> & Partial<Pick<Conversion, 'warning_details'>>,
): WarningGroup[] {
  const details: Detail[] =
    conversion.warning_details ?? conversion.warnings.map((warning) => ({ warning, line: null, count: 1 }));
  const groups = new Map<string, { count: number; details: string[]; line: number | null }>();
  for (const entry of details) {
    const { code, detail } = split(entry.warning);
    let group = groups.get(code);
    if (!group) {
      group = { count: 0, details: [], line: null };
      groups.set(code, group);
    }
    group.count += entry.count;
    if (detail && !group.details.includes(detail)) group.details.push(detail);
    if (entry.line !== null && (group.line === null || entry.line < group.line)) group.line = entry.line;
  }
  return [...groups].map(([code, group]) => ({
    code,
    ...group,
    text: sentence(code, group.count, group.details, group.line),
  }));
}
