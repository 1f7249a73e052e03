// Word computes PAGE and NUMPAGES when it lays pages out; a .docx holds only the value last shown (often none, or
// "1" on every page). Before the preview renders, the fields of headers and footers get a mark in place of that
// value; paginate.ts writes each page's number there once the pages exist. Only the preview's copy changes.
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';

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
    if (state === 'instruction') for (const t of Array.from(run.getElementsByTagNameNS(W, 'instrText'))) instruction += t.textContent ?? '';
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

/** The .docx with the page fields of its headers and footers marked (the bytes unchanged when it has none). */
export function markPageFields(bytes: Uint8Array): Uint8Array {
  const files = unzipSync(bytes);
  let changed = false;
  for (const [name, data] of Object.entries(files)) {
    if (!/^word\/(header|footer)\d*\.xml$/.test(name)) continue;
    const doc = new DOMParser().parseFromString(strFromU8(data), 'application/xml');
    if (doc.getElementsByTagName('parsererror').length > 0) continue;
    if (markPart(doc)) {
      files[name] = strToU8(new XMLSerializer().serializeToString(doc));
      changed = true;
    }
  }
  return changed ? zipSync(files) : bytes;
}
