// The preview's copy of a piece's equations, in the OMML docx-preview reads (it turns OMML into MathML, which the
// browser draws). docx-preview drops an element it has no name for, with everything inside it: a subscript and a
// superscript together (`x_i^2`, m:sSubSup), an accent (`\hat x`, m:acc), an upper limit (m:limUpp), a framed
// formula (m:borderBox) and a phantom (m:phant) would vanish from the preview. Each is rewritten here as what
// docx-preview draws alike; the document itself is never changed (only the preview's copy of a piece).
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';

const M = 'http://schemas.openxmlformats.org/officeDocument/2006/math';

/** The elements docx-preview cannot draw, which this rewrites. */
export const UNDRAWN = /<m:(?:sSubSup|acc|limUpp|borderBox|phant)\b/;

function child(el: Element, name: string): Element | undefined {
  for (let node = el.firstChild; node; node = node.nextSibling)
    if (node.nodeType === 1 && (node as Element).namespaceURI === M && (node as Element).localName === name)
      return node as Element;
  return undefined;
}

function make(doc: Document, name: string, children: (Element | undefined)[]): Element {
  const el = doc.createElementNS(M, `m:${name}`);
  for (const c of children) if (c) el.appendChild(c);
  return el;
}

/** `m:name` holding copies of `el`'s children (an m:e, m:sub … renamed or moved whole). */
function wrapping(doc: Document, name: string, from: Element | undefined): Element {
  const el = doc.createElementNS(M, `m:${name}`);
  if (from) while (from.firstChild) el.appendChild(from.firstChild);
  return el;
}

/** What one undrawn element becomes, or undefined to drop it (a phantom: invisible by its nature). */
function rewrite(doc: Document, el: Element): Element | undefined {
  switch (el.localName) {
    case 'sSubSup':
      // x_i^2 → (x_i)^2: a superscript on a subscript.
      return make(doc, 'sSup', [
        make(doc, 'e', [
          make(doc, 'sSub', [wrapping(doc, 'e', child(el, 'e')), wrapping(doc, 'sub', child(el, 'sub'))]),
        ]),
        wrapping(doc, 'sup', child(el, 'sup')),
      ]);
    case 'acc': {
      // \hat x → a group character over x (docx-preview draws m:groupChr with its character over or under).
      const chr = child(child(el, 'accPr') ?? el, 'chr')?.getAttributeNS(M, 'val') ?? '\u0302';
      const pr = make(doc, 'groupChrPr', []);
      const c = doc.createElementNS(M, 'm:chr');
      c.setAttributeNS(M, 'm:val', chr);
      const pos = doc.createElementNS(M, 'm:pos');
      pos.setAttributeNS(M, 'm:val', 'top');
      pr.appendChild(c);
      pr.appendChild(pos);
      return make(doc, 'groupChr', [pr, wrapping(doc, 'e', child(el, 'e'))]);
    }
    case 'limUpp':
      // A limit over an expression → the limit as its superscript.
      return make(doc, 'sSup', [wrapping(doc, 'e', child(el, 'e')), wrapping(doc, 'sup', child(el, 'lim'))]);
    case 'borderBox':
      return make(doc, 'box', [wrapping(doc, 'e', child(el, 'e'))]);
    default:
      return undefined;
  }
}

/** Rewrites every undrawn element of `doc` (innermost first, so nested ones are rewritten too); whether any was. */
export function drawableMath(doc: Document): boolean {
  const found: Element[] = [];
  for (const name of ['sSubSup', 'acc', 'limUpp', 'borderBox', 'phant'])
    found.push(...Array.from(doc.getElementsByTagNameNS(M, name)));
  // Deepest first: a rewrite moves an element's children, which must already be what they will be.
  const depth = (el: Element): number => {
    let d = 0;
    for (let p = el.parentNode; p; p = p.parentNode) d += 1;
    return d;
  };
  found.sort((a, b) => depth(b) - depth(a));
  for (const el of found) {
    const made = rewrite(doc, el);
    if (made) el.parentNode?.replaceChild(made, el);
    else el.parentNode?.removeChild(el);
  }
  return found.length > 0;
}

/** A piece (.docx bytes) with its equations drawable by docx-preview; the same bytes when it has none to rewrite. */
export function drawablePiece(bytes: Uint8Array): Uint8Array {
  // The body alone is inflated to look (most pieces hold no such formula); the whole piece only to write it again.
  const body = unzipSync(bytes, { filter: (file) => file.name === 'word/document.xml' })['word/document.xml'];
  if (!body) return bytes;
  const xml = strFromU8(body);
  if (!UNDRAWN.test(xml)) return bytes;
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  if (!drawableMath(doc)) return bytes;
  const parts = unzipSync(bytes);
  parts['word/document.xml'] = strToU8(new XMLSerializer().serializeToString(doc));
  return zipSync(parts, { level: 0 });
}
