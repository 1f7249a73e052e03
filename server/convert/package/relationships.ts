import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { children, parsePart, serializePart } from './dom.ts';
import { NS } from './namespaces.ts';

const EMPTY = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="${NS.pkg}"></Relationships>`;

/** Relationship types by short name. */
export const REL = {
  hyperlink: `${NS.r}/hyperlink`,
  numbering: `${NS.r}/numbering`,
  footnotes: `${NS.r}/footnotes`,
  comments: `${NS.r}/comments`,
  settings: `${NS.r}/settings`,
  coreProperties: 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties',
} as const;

export interface Relationship {
  id: string;
  type: string;
  target: string;
  external: boolean;
}

/** The relationships part of one part: read, added to (ids allocated here, and only here), written. */
export class Relationships {
  private readonly doc: XmlDocument;
  /** True once something was added or removed (an untouched part is written back byte for byte). */
  changed = false;

  /** Ids in use, kept up to date by add and remove. */
  private readonly taken: Set<string>;

  /** Per prefix, a number below which every id is taken (so a thousand links cost a thousand probes, not 500,000). */
  private readonly free = new Map<string, number>();

  constructor(xml: Uint8Array | string | undefined, name: string) {
    this.doc = parsePart(xml ?? EMPTY, name);
    this.taken = new Set(this.list().map((r) => r.id));
  }

  private elements(): Element[] {
    return this.doc.documentElement
      ? children(this.doc.documentElement).filter((e) => e.localName === 'Relationship')
      : [];
  }

  list(): Relationship[] {
    return this.elements().map((e) => ({
      id: e.getAttribute('Id') ?? '',
      type: e.getAttribute('Type') ?? '',
      target: e.getAttribute('Target') ?? '',
      external: e.getAttribute('TargetMode') === 'External',
    }));
  }

  has(id: string): boolean {
    return this.taken.has(id);
  }

  /** The first relationship of a type. */
  ofType(type: string): Relationship | undefined {
    return this.list().find((r) => r.type === type);
  }

  /**
   * Adds a relationship and returns its id: `rIdN` (the first free N from the count up) for internal parts, or
   * `<prefix>N` (the first free N) when a prefix is given.
   */
  add(type: string, target: string, options: { external?: boolean; prefix?: string } = {}): string {
    const taken = this.taken;
    let id: string;
    if (options.prefix === undefined) {
      let n = taken.size + 1;
      while (taken.has(`rId${n}`)) n += 1;
      id = `rId${n}`;
    } else {
      let n = this.free.get(options.prefix) ?? 1;
      while (taken.has(`${options.prefix}${n}`)) n += 1;
      id = `${options.prefix}${n}`;
      this.free.set(options.prefix, n + 1);
    }
    const root = this.doc.documentElement;
    if (!root) throw new Error('relationships part without a root');
    const el = this.doc.createElementNS(NS.pkg, 'Relationship');
    el.setAttribute('Id', id);
    el.setAttribute('Type', type);
    el.setAttribute('Target', target);
    if (options.external) el.setAttribute('TargetMode', 'External');
    root.appendChild(el);
    taken.add(id);
    this.changed = true;
    return id;
  }

  /** Removes the relationships of a type pointing at `target`. */
  remove(type: string, target: string): void {
    for (const e of this.elements()) {
      if (e.getAttribute('Type') === type && e.getAttribute('Target') === target) {
        e.parentNode?.removeChild(e);
        this.taken.delete(e.getAttribute('Id') ?? '');
        this.free.clear();
        this.changed = true;
      }
    }
  }

  toXml(): string {
    return serializePart(this.doc);
  }
}

/** A relationship of a part docx wrote, as xmldom would read its attributes. */
export interface GeneratedRelationship {
  id: string;
  type: string;
  target: string;
}

const ENTITY = /&(?:amp|lt|gt|quot|apos|#x[0-9a-fA-F]+|#\d+);/g;
const NAMED: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };
/** An attribute's value as xmldom reads it: entities and character references resolved, white space made spaces. */
const attributeValue = (raw: string): string =>
  raw
    .replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n')
    .replace(/[\t\n\r]/g, ' ')
    .replace(
      ENTITY,
      (e) => NAMED[e] ?? String.fromCodePoint(e[2] === 'x' ? parseInt(e.slice(3, -1), 16) : Number(e.slice(2, -1))),
    );

/**
 * The relationships of a relationships part docx wrote (its hyperlinks and pictures: hundreds of KB in a long
 * document, read as text rather than as a DOM), in order.
 */
export function generatedRelationships(xml: string | undefined): GeneratedRelationship[] {
  if (xml === undefined) return [];
  const out: GeneratedRelationship[] = [];
  for (const [tag] of xml.matchAll(/<Relationship\s[^>]*>/g)) {
    const attributes = new Map<string, string>();
    for (const [, name, value] of tag.matchAll(/\s([^\s=/>]+)\s*=\s*"([^"]*)"/g))
      if (!attributes.has(name ?? '')) attributes.set(name ?? '', attributeValue(value ?? ''));
    out.push({
      id: attributes.get('Id') ?? '',
      type: attributes.get('Type') ?? '',
      target: attributes.get('Target') ?? '',
    });
  }
  return out;
}
