import type { Document as XmlDocument, Element, Node } from '@xmldom/xmldom';
import { children, descendants, isW, paragraphText, wAttr, wChild } from './dom.ts';
import { NS } from './namespaces.ts';
import { keepSectionsWithContent } from './sections.ts';

const PLACEHOLDER = '{{content}}';

/** What the template's own body still refers to once the content is in: notes and comments to keep. */
export interface KeptReferences {
  footnotes: Set<string>;
  endnotes: Set<string>;
  comments: Set<string>;
}

/** The template's body made ready once per template: what stays of it, and a marker where our content goes. */
export interface TemplateBody {
  readonly body: Element;
  readonly marker: Node;
  readonly kept: KeptReferences;
}

/**
 * Prepares a template's parsed document (changing it) for any number of merges. With a `{{content}}` paragraph the
 * content will replace it and the rest of the body stays (cover, signature, …). Without one the template's text goes
 * and the content goes at the end, in the last section. Either way the content takes the properties of the section it
 * lands in, and of the template's other sections only those holding something of its own stay (sections.ts). `kept`
 * is what the kept template body refers to (notes, comments).
 */
export function templateBody(template: XmlDocument): TemplateBody {
  const body = wChild(template.documentElement, 'body');
  if (!body) throw new Error('the template document has no w:body');
  const marker = template.createComment('content');
  const placeholder = children(body).find((c) => isW(c, 'p') && paragraphText(c).trim() === PLACEHOLDER);
  if (placeholder) {
    body.insertBefore(marker, placeholder);
    // A placeholder that ends a section leaves its section break behind.
    if (sectionProperties(placeholder)) emptyParagraph(placeholder);
    else body.removeChild(placeholder);
  } else {
    const finalSection = children(body)
      .filter((c) => isW(c, 'sectPr'))
      .pop();
    for (let n: Node | null = body.firstChild; n;) {
      const next = n.nextSibling;
      if (n !== finalSection) {
        if (isW(n, 'p') && sectionProperties(n)) emptyParagraph(n);
        else {
          // A section break inside a block-level content control (a table of contents) stays, out of the control.
          if (n.nodeType === 1)
            for (const p of sectionBreaksWithin(n as Element)) body.insertBefore(emptyParagraph(p), n);
          body.removeChild(n);
        }
      }
      n = next;
    }
    body.insertBefore(marker, finalSection ?? null);
  }
  keepSectionsWithContent(body, marker);
  return { body, marker, kept: referencesOf(body) };
}

/**
 * Puts the generated body into the template's document (see templateBody). The result is docx's document (our
 * content, most of the document, is not copied) with the template's root attributes, its other document-level
 * elements (a background) and its kept body around our content. Returns it, our content and what the kept template
 * body refers to.
 */
export function mergeDocument(
  template: XmlDocument | TemplateBody,
  generated: XmlDocument,
): { document: XmlDocument; content: Element[]; kept: KeptReferences } {
  const { body, marker, kept } = 'marker' in template ? template : templateBody(template);
  const root = generated.documentElement;
  const ourBody = wChild(root, 'body');
  const templateRoot = body.parentNode as Element | null;
  if (!templateRoot || !root || !ourBody) throw new Error('a document part has no w:body');
  // docx's document takes the template's root attributes (namespaces, mc:Ignorable, conformance) …
  for (let i = root.attributes.length - 1; i >= 0; i--) {
    const a = root.attributes.item(i);
    if (a) root.removeAttributeNode(a);
  }
  for (let i = 0; i < templateRoot.attributes.length; i++) {
    const a = templateRoot.attributes.item(i);
    if (a) root.setAttributeNode(generated.importNode(a, true));
  }
  // … its document-level elements (a background) …
  for (const c of children(root)) if (c !== ourBody) root.removeChild(c);
  let beforeBody = true;
  for (const c of children(templateRoot)) {
    if (c === body) beforeBody = false;
    else root.insertBefore(generated.importNode(c, true), beforeBody ? ourBody : null);
  }
  // … and the template's kept body around our content.
  const content = children(ourBody).filter((c): boolean => !isW(c, 'sectPr'));
  for (const c of children(ourBody)) if (isW(c, 'sectPr')) ourBody.removeChild(c);
  const first = content[0] ?? null;
  let beforeContent = true;
  for (let n: Node | null = body.firstChild; n; n = n.nextSibling) {
    if (n === marker) beforeContent = false;
    else ourBody.insertBefore(generated.importNode(n, true), beforeContent ? first : null);
  }
  return { document: generated, content, kept };
}

/**
 * The document around our content: docx's document with its body's content taken out (its root, its w:body), given
 * the template's root attributes, its document-level elements and its kept body as mergeDocument gives them, with a
 * comment where our content goes. Returns it, that comment, the kept body's elements and what they refer to.
 */
export function documentShell(
  template: TemplateBody,
  generated: XmlDocument,
): { document: XmlDocument; marker: Node; keptNodes: Element[]; kept: KeptReferences } {
  const { document, kept } = mergeDocument(template, generated);
  const ourBody = document.documentElement ? wChild(document.documentElement, 'body') : undefined;
  if (!ourBody) throw new Error('a document part has no w:body');
  // mergeDocument put the kept body in order; the comment goes where the template's marker stands among it.
  let index = 0;
  for (let n: Node | null = template.body.firstChild; n && n !== template.marker; n = n.nextSibling) index += 1;
  const marker = document.createComment('content');
  ourBody.insertBefore(marker, ourBody.childNodes.item(index));
  return { document, marker, keptNodes: children(ourBody), kept };
}

function sectionProperties(p: Element): Element | undefined {
  return wChild(wChild(p, 'pPr'), 'sectPr');
}

/** Keeps only a paragraph's properties (its section break among them): its text is the template's, not ours. */
function emptyParagraph(p: Element): Element {
  for (let n = p.firstChild; n;) {
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

/** Footnotes, endnotes and comments the template's kept body refers to. */
function referencesOf(body: Element): KeptReferences {
  const kept = { footnotes: new Set<string>(), endnotes: new Set<string>(), comments: new Set<string>() };
  for (const child of children(body)) {
    const inside = (name: string) => [...(isW(child, name) ? [child] : []), ...descendants(child, NS.w, name)];
    for (const el of inside('footnoteReference')) kept.footnotes.add(wAttr(el, 'id'));
    for (const el of inside('endnoteReference')) kept.endnotes.add(wAttr(el, 'id'));
    for (const el of [...inside('commentReference'), ...inside('commentRangeStart')])
      kept.comments.add(wAttr(el, 'id'));
  }
  return kept;
}
