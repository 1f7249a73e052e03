// The preview lays a large document out a few pages at a time: the body of word/document.xml is cut into its
// top-level blocks (paragraphs, tables, …) and regrouped into small documents that share every other part. This runs
// in a worker (preview-worker.ts), which has no DOMParser, so the body is walked by a small tag scanner that respects
// quoted attribute values, comments and CDATA; nothing is rewritten inside a block.

/** word/document.xml around its body's blocks: `head` ends with `<w:body>`, `tail` starts with `</w:body>`. */
export interface Body {
  head: string;
  /** The body's top-level elements in order, each as its XML text (the final section properties excluded). */
  blocks: string[];
  /** The characters of text in each block (entities counted as one): how much of the pages it fills. */
  text: number[];
  /** The body's last `<w:sectPr>` (page size, margins, headers and footers of the last section), or ''. */
  sectPr: string;
  tail: string;
}

/** The end of the markup starting at `at` (a `<`): the index after its closing `>` (or the comment's / CDATA's). */
function markupEnd(xml: string, at: number): number {
  if (xml.startsWith('<!--', at)) return end(xml.indexOf('-->', at + 4), 3);
  if (xml.startsWith('<![CDATA[', at)) return end(xml.indexOf(']]>', at + 9), 3);
  if (xml.startsWith('<?', at)) return end(xml.indexOf('?>', at + 2), 2);
  let quote = '';
  for (let i = at + 1; i < xml.length; i++) {
    const c = xml[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i + 1;
  }
  return xml.length;
}

function end(index: number, length: number): number {
  return index < 0 ? Number.MAX_SAFE_INTEGER : index + length;
}

/** The qualified name of the tag at `at` (`<w:p …>` → `w:p`, `</w:p>` → `w:p`). */
function tagName(xml: string, at: number): string {
  let i = at + 1;
  if (xml[i] === '/') i++;
  const start = i;
  while (i < xml.length && !/[\s/>]/.test(xml[i] ?? '')) i++;
  return xml.slice(start, i);
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** Characters of text between `from` and `to` (tags skipped, an entity counted as one character). */
function textLength(xml: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to;) {
    const c = xml[i];
    if (c === '<') {
      i = markupEnd(xml, i);
      continue;
    }
    if (c === '&') {
      const semi = xml.indexOf(';', i);
      i = semi < 0 || semi > to ? i + 1 : semi + 1;
    } else i++;
    if (c !== '\n' && c !== '\r') count++;
  }
  return count;
}

/** An element's children, each as its XML text, and the text around them (`head` ends with its start tag). */
interface Children {
  head: string;
  children: string[];
  /** Where each child starts in the whole text (for measuring it without copying). */
  starts: number[];
  tail: string;
}

/** The children of the first element named `local` (any prefix); null when there is none or it is empty. */
function childrenOf(xml: string, local: string): Children | null {
  let open = -1;
  for (let at = xml.indexOf('<'); at >= 0; at = xml.indexOf('<', markupEnd(xml, at))) {
    if (xml[at + 1] !== '/' && xml[at + 1] !== '!' && xml[at + 1] !== '?' && localName(tagName(xml, at)) === local) {
      open = markupEnd(xml, at);
      break;
    }
  }
  if (open < 0 || xml[open - 2] === '/') return null;
  const children: string[] = [];
  const starts: number[] = [];
  let depth = 0;
  let childStart = -1;
  for (let at = xml.indexOf('<', open); at >= 0;) {
    const after = markupEnd(xml, at);
    const next = xml[at + 1];
    if (next === '!' || next === '?') {
      at = xml.indexOf('<', after);
      continue;
    }
    if (next === '/') {
      // The element's own end tag.
      if (depth === 0) return { head: xml.slice(0, open), children, starts, tail: xml.slice(at) };
      depth--;
    } else {
      if (depth === 0) childStart = at;
      if (xml[after - 2] !== '/') depth++;
    }
    if (depth === 0 && childStart >= 0) {
      children.push(xml.slice(childStart, after));
      starts.push(childStart);
      childStart = -1;
    }
    at = xml.indexOf('<', after);
  }
  return null;
}

/** The value of the attribute named `local` (any prefix) in the start tag at the beginning of `xml`, or null. */
export function attribute(xml: string, local: string): string | null {
  const end = markupEnd(xml, 0);
  const tag = xml.slice(0, end);
  const pattern = /([\w.-]+(?::[\w.-]+)?)\s*=\s*("([^"]*)"|'([^']*)')/g;
  for (let match = pattern.exec(tag); match; match = pattern.exec(tag))
    if (localName(match[1] ?? '') === local) return match[3] ?? match[4] ?? '';
  return null;
}

/** The `val` of every element named `local` in `xml` (e.g. every `<w:numId w:val="3"/>` → "3"). */
export function valuesOf(xml: string, local: string): Set<string> {
  const out = new Set<string>();
  for (let at = xml.indexOf('<'); at >= 0; at = xml.indexOf('<', markupEnd(xml, at))) {
    if (xml[at + 1] === '/' || xml[at + 1] === '!' || xml[at + 1] === '?') continue;
    if (localName(tagName(xml, at)) !== local) continue;
    const value = attribute(xml.slice(at, markupEnd(xml, at)), 'val');
    if (value !== null) out.add(value);
  }
  return out;
}

/** Cuts word/document.xml into its body's blocks; null when it has no body (the preview then renders it whole). */
export function splitBody(xml: string): Body | null {
  const body = childrenOf(xml, 'body');
  if (!body) return null;
  const blocks: string[] = [];
  const text: number[] = [];
  let sectPr = '';
  body.children.forEach((block, i) => {
    if (localName(tagName(block, 0)) === 'sectPr') sectPr = block;
    else {
      blocks.push(block);
      const start = body.starts[i] ?? 0;
      text.push(textLength(xml, start, start + block.length));
    }
  });
  return { head: body.head, blocks, text, sectPr, tail: body.tail };
}

/**
 * word/numbering.xml with only the lists `numIds` use (and their abstract definitions): a long document has
 * hundreds, which docx-preview would read again for every piece. Null when it cannot be read (kept whole).
 */
export function numberingFor(xml: string, numIds: ReadonlySet<string>): string | null {
  const numbering = childrenOf(xml, 'numbering');
  if (!numbering) return null;
  const abstracts = new Set<string>();
  const kept = numbering.children.filter((child) => {
    if (localName(tagName(child, 0)) !== 'num') return true;
    if (!numIds.has(attribute(child, 'numId') ?? '')) return false;
    for (const id of valuesOf(child, 'abstractNumId')) abstracts.add(id);
    return true;
  });
  const out = kept.filter(
    (child) =>
      localName(tagName(child, 0)) !== 'abstractNum' ||
      abstracts.has(attribute(child, 'abstractNumId') ?? '') ||
      // Linked to a numbering style: kept, since the style may be what uses it.
      valuesOf(child, 'numStyleLink').size > 0 ||
      valuesOf(child, 'styleLink').size > 0,
  );
  return `${numbering.head}${out.join('')}${numbering.tail}`;
}

/**
 * word/_rels/document.xml.rels without the hyperlinks and images `blocks` do not name (a long document has
 * thousands); every other relationship (styles, numbering, headers, …) is kept. Null when it cannot be read.
 */
export function relationshipsFor(xml: string, blocks: string): string | null {
  const rels = childrenOf(xml, 'Relationships');
  if (!rels) return null;
  const kept = rels.children.filter((child) => {
    const type = attribute(child, 'Type') ?? '';
    if (!type.endsWith('/hyperlink') && !type.endsWith('/image')) return true;
    const id = attribute(child, 'Id');
    return id !== null && (blocks.includes(`"${id}"`) || blocks.includes(`'${id}'`));
  });
  return `${rels.head}${kept.join('')}${rels.tail}`;
}

/** The body's blocks grouped into runs of about `first` characters of text, then `rest` each (at least one block). */
export function groupBlocks(text: readonly number[], first: number, rest: number): [start: number, end: number][] {
  const groups: [number, number][] = [];
  let start = 0;
  let sum = 0;
  for (let i = 0; i < text.length; i++) {
    // A block's own weight: its text, and a short line's worth for the space a paragraph or row takes.
    sum += (text[i] ?? 0) + 40;
    if (sum >= (groups.length === 0 ? first : rest)) {
      groups.push([start, i + 1]);
      start = i + 1;
      sum = 0;
    }
  }
  if (start < text.length) groups.push([start, text.length]);
  return groups;
}

/** word/document.xml holding only `blocks` (and the last section's properties, so pages keep their size). */
export function documentOf(body: Body, blocks: readonly string[]): string {
  return `${body.head}${blocks.join('')}${body.sectPr}${body.tail}`;
}
