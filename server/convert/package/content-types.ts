import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { children, parsePart, serializePart } from './dom.ts';
import { NS } from './namespaces.ts';

/** Content types of the parts Docwright may add, and of the main part. */
export const CONTENT_TYPE = {
  document: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
  template: 'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml',
  numbering: 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml',
  footnotes: 'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml',
  comments: 'application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml',
  core: 'application/vnd.openxmlformats-package.core-properties+xml',
  settings: 'application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml',
} as const;

/** [Content_Types].xml: overrides added, removed and retyped through one object. */
export class ContentTypes {
  private readonly doc: XmlDocument;
  changed = false;

  constructor(xml: Uint8Array | string | undefined) {
    this.doc = parsePart(
      xml ?? `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="${NS.ct}"></Types>`,
      '[Content_Types].xml',
    );
  }

  private overrides(): Element[] {
    return this.doc.documentElement ? children(this.doc.documentElement).filter((e) => e.localName === 'Override') : [];
  }

  /** The override of a part (`/word/numbering.xml`). */
  typeOf(partName: string): string | undefined {
    return (
      this.overrides()
        .find((e) => e.getAttribute('PartName') === partName)
        ?.getAttribute('ContentType') ?? undefined
    );
  }

  /** Adds an override unless the part has one. */
  addOverride(partName: string, type: string): void {
    const root = this.doc.documentElement;
    if (!root || this.typeOf(partName) !== undefined) return;
    const el = this.doc.createElementNS(NS.ct, 'Override');
    el.setAttribute('PartName', partName);
    el.setAttribute('ContentType', type);
    root.appendChild(el);
    this.changed = true;
  }

  removeOverride(partName: string): void {
    for (const e of this.overrides()) {
      if (e.getAttribute('PartName') === partName) {
        e.parentNode?.removeChild(e);
        this.changed = true;
      }
    }
  }

  /** A .dotx template gives a .docx document: the main part's template type becomes the document type. */
  mainAsDocument(partName: string): void {
    for (const e of this.overrides()) {
      if (e.getAttribute('PartName') === partName && e.getAttribute('ContentType') === CONTENT_TYPE.template) {
        e.setAttribute('ContentType', CONTENT_TYPE.document);
        this.changed = true;
      }
    }
  }

  toXml(): string {
    return serializePart(this.doc);
  }
}
