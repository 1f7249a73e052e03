// The preview's copy of a .docx, prepared for docx-preview (the parts come from preview-worker.ts). Word computes PAGE and NUMPAGES when it lays pages out; a .docx holds only the value last shown (often none, or
// "1" on every page). Before the preview renders, the fields of headers and footers get a mark in place of that
// value; paginate.ts writes each page's number there once the pages exist. Only the preview's copy changes.
import { strFromU8, strToU8 } from 'fflate';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
/** Private-use characters that stand for the page number and the page count until the pages are counted. */
export const PAGE_MARK = '\uE000';
export const NUMPAGES_MARK = '\uE001';

/** The mark of a field instruction (`PAGE \* MERGEFORMAT` → PAGE_MARK), or null for other fields. */
function markOf(instruction: string): string | null {
  const name = instruction.trim().split(/\s+/)[0]?.toUpperCase();
  if (name === 'PAGE') return PAGE_MARK;
  if (name === 'NUMPAGES' || name === 'SECTIONPAGES') return NUMPAGES_MARK;
  return null;
}

function textRun(doc: XMLDocument, text: string, like: Element | null): Element {
  const run = doc.createElementNS(W, 'w:r');
  const props = like?.getElementsByTagNameNS(W, 'rPr')[0];
  if (props) run.appendChild(props.cloneNode(true));
  const t = doc.createElementNS(W, 'w:t');
  t.textContent = text;
  run.appendChild(t);
  return run;
}

/** Marks the PAGE / NUMPAGES fields of one part; returns whether it changed. */
function markPart(doc: XMLDocument): boolean {
  let changed = false;
  for (const field of Array.from(doc.getElementsByTagNameNS(W, 'fldSimple'))) {
    const mark = markOf(field.getAttributeNS(W, 'instr') ?? field.getAttribute('w:instr') ?? '');
    if (!mark) continue;
    field.replaceWith(textRun(doc, mark, field.getElementsByTagNameNS(W, 'r')[0] ?? null));
    changed = true;
  }
  let state: 'none' | 'instruction' | 'result' | 'other' = 'none';
  let instruction = '';
  let shown = false;
  let begin: Element | null = null;
  for (const run of Array.from(doc.getElementsByTagNameNS(W, 'r'))) {
    const char = run.getElementsByTagNameNS(W, 'fldChar')[0];
    const type = char?.getAttributeNS(W, 'fldCharType') ?? char?.getAttribute('w:fldCharType');
    if (type === 'begin') {
      state = 'instruction';
      instruction = '';
      shown = false;
      begin = run;
      continue;
    }
    if (state === 'instruction')
      for (const t of Array.from(run.getElementsByTagNameNS(W, 'instrText'))) instruction += t.textContent;
    if (type === 'separate' && state === 'instruction') {
      state = markOf(instruction) ? 'result' : 'other';
      continue;
    }
    if (type === 'end') {
      const mark = markOf(instruction);
      // A field with no shown value: its mark follows the field.
      if (mark && !shown && state !== 'other') {
        run.after(textRun(doc, mark, begin));
        changed = true;
      }
      state = 'none';
      continue;
    }
    if (state === 'result') {
      for (const t of Array.from(run.getElementsByTagNameNS(W, 't'))) {
        const mark = markOf(instruction);
        t.textContent = shown || !mark ? '' : mark;
        shown = true;
        changed = true;
      }
    }
  }
  return changed;
}

/** Paragraph styles' tab stops (their own, else their base style's), by style id. */
function styleTabs(stylesXml: Uint8Array | undefined): Map<string, Element> {
  const out = new Map<string, Element>();
  if (!stylesXml) return out;
  const doc = new DOMParser().parseFromString(strFromU8(stylesXml), 'application/xml');
  const styles = new Map<string, Element>();
  for (const style of Array.from(doc.getElementsByTagNameNS(W, 'style')))
    styles.set(style.getAttributeNS(W, 'styleId') ?? style.getAttribute('w:styleId') ?? '', style);
  for (const id of styles.keys()) {
    const seen = new Set<string>();
    for (let style = styles.get(id); style && !seen.has(id);) {
      const tabs = Array.from(style.getElementsByTagNameNS(W, 'tabs'))[0];
      if (tabs) {
        out.set(id, tabs);
        break;
      }
      const based = Array.from(style.getElementsByTagNameNS(W, 'basedOn'))[0];
      const next = based?.getAttributeNS(W, 'val') ?? based?.getAttribute('w:val');
      if (!next || seen.has(next)) break;
      seen.add(next);
      style = styles.get(next);
    }
  }
  return out;
}

/**
 * docx-preview places tab stops from a paragraph's own list only: a header's paragraph gets its style's (Word's
 * Header style has its centre and right stops there, where a page number usually goes).
 */
function inheritTabs(doc: XMLDocument, tabsOf: Map<string, Element>): boolean {
  let changed = false;
  for (const paragraph of Array.from(doc.getElementsByTagNameNS(W, 'p'))) {
    const props = Array.from(paragraph.childNodes).find(
      (n): n is Element => n instanceof Element && n.localName === 'pPr' && n.namespaceURI === W,
    );
    if (!props || Array.from(props.childNodes).some((n) => n instanceof Element && n.localName === 'tabs')) continue;
    const styleId = Array.from(props.getElementsByTagNameNS(W, 'pStyle'))[0];
    const tabs = tabsOf.get(styleId?.getAttributeNS(W, 'val') ?? styleId?.getAttribute('w:val') ?? '');
    if (!tabs) continue;
    props.appendChild(doc.importNode(tabs, true));
    changed = true;
  }
  return changed;
}

/**
 * The page fields of the headers and footers among `parts` (a .docx's styles, headers and footers by name) marked,
 * and their paragraphs given their style's tab stops; returns only the parts that changed.
 */
export function markPageFields(parts: Readonly<Record<string, Uint8Array>>): Record<string, Uint8Array> {
  const changed: Record<string, Uint8Array> = {};
  const tabsOf = styleTabs(parts['word/styles.xml']);
  for (const [name, data] of Object.entries(parts)) {
    if (!/^word\/(header|footer)\d*\.xml$/.test(name)) continue;
    const doc = new DOMParser().parseFromString(strFromU8(data), 'application/xml');
    if (doc.getElementsByTagName('parsererror').length > 0) continue;
    const tabbed = inheritTabs(doc, tabsOf);
    if (markPart(doc) || tabbed) changed[name] = strToU8(new XMLSerializer().serializeToString(doc));
  }
  return changed;
}
