import type { Document as XmlDocument, Element, Node } from '@xmldom/xmldom';
import { children, descendants, isW, paragraphText, wAttr, wChild } from './dom.ts';
import { NS } from './namespaces.ts';

const PLACEHOLDER = '{{content}}';

/** What the template's own body still refers to once the content is in: notes and comments to keep. */
export interface KeptReferences {
  footnotes: Set<string>;
  endnotes: Set<string>;
  comments: Set<string>;
}

/**
 * Puts the generated body into the template's document, section by section. With a `{{content}}` paragraph the
 * content replaces it and the rest of the body stays (cover, signature, …). Without one the template's text goes and
 * its sections stay: every paragraph that ends a section is kept, emptied, with its section properties, and the
 * content goes at the end, in the last section. Either way the content takes the properties of the section it lands
 * in. Returns our content (now in the template's document) and what the kept template body refers to.
 */
export function mergeDocument(template: XmlDocument, generated: XmlDocument): { content: Element[]; kept: KeptReferences } {
  const body = wChild(template.documentElement, 'body');
  if (!body) throw new Error('the template document has no w:body');
  const content = generatedContent(generated).map((n) => template.importNode(n, true) as Element);
  const placeholder = children(body).find((c) => isW(c, 'p') && paragraphText(c).trim() === PLACEHOLDER);
  if (placeholder) {
    for (const node of content) body.insertBefore(node, placeholder);
    // A placeholder that ends a section leaves its section break behind.
    if (sectionProperties(placeholder)) emptyParagraph(placeholder);
    else body.removeChild(placeholder);
  } else {
    const finalSection = children(body).filter((c) => isW(c, 'sectPr')).pop();
    for (let n: Node | null = body.firstChild; n; ) {
      const next = n.nextSibling;
      if (n !== finalSection) {
        if (isW(n, 'p') && sectionProperties(n)) emptyParagraph(n);
        else {
          // A section break inside a block-level content control (a table of contents) stays, out of the control.
          if (n.nodeType === 1) for (const p of sectionBreaksWithin(n as Element)) body.insertBefore(emptyParagraph(p), n);
          body.removeChild(n);
        }
      }
      n = next;
    }
    for (const node of content) body.insertBefore(node, finalSection ?? null);
  }
  return { content, kept: referencesOf(body, content) };
}

/** docx's body content, without its own section properties. */
function generatedContent(generated: XmlDocument): Element[] {
  const body = wChild(generated.documentElement, 'body');
  return body ? children(body).filter((c) => !isW(c, 'sectPr')) : [];
}

function sectionProperties(p: Element): Element | undefined {
  return wChild(wChild(p, 'pPr'), 'sectPr');
}

/** Keeps only a paragraph's properties (its section break among them): its text is the template's, not ours. */
function emptyParagraph(p: Element): Element {
  for (let n = p.firstChild; n; ) {
    const next = n.nextSibling;
    if (!isW(n, 'pPr')) p.removeChild(n);
    n = next;
  }
  return p;
}

/** Block-level containers a body-level paragraph may stand in. */
const BLOCK_CONTAINERS = new Set(['sdt', 'sdtContent', 'customXml']);

/** The section-break paragraphs inside a block-level container (content controls, custom XML), in order. */
function sectionBreaksWithin(el: Element): Element[] {
  if (el.namespaceURI !== NS.w || !BLOCK_CONTAINERS.has(el.localName ?? '')) return [];
  return children(el).flatMap((c) => (isW(c, 'p') ? (sectionProperties(c) ? [c] : []) : sectionBreaksWithin(c)));
}

/** Footnotes, endnotes and comments the template's kept body refers to (the generated content is not counted). */
function referencesOf(body: Element, content: Node[]): KeptReferences {
  const ours = new Set(content);
  const kept = { footnotes: new Set<string>(), endnotes: new Set<string>(), comments: new Set<string>() };
  for (const child of children(body)) {
    if (ours.has(child)) continue;
    const inside = (name: string) => [...(isW(child, name) ? [child] : []), ...descendants(child, NS.w, name)];
    for (const el of inside('footnoteReference')) kept.footnotes.add(wAttr(el, 'id'));
    for (const el of inside('endnoteReference')) kept.endnotes.add(wAttr(el, 'id'));
    for (const el of [...inside('commentReference'), ...inside('commentRangeStart')]) kept.comments.add(wAttr(el, 'id'));
  }
  return kept;
}
