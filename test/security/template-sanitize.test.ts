// Templates are untrusted input: external relationships (T1221 attachedTemplate, OLE links, sub-documents, linked
// images, alt chunks) never reach an output, no reference to a removed relationship dangles, style ids and font
// names that would break the preview's CSS are renamed everywhere, and the result stays schema-valid. Real
// templates: the built-in one and the corpus's, each with an attacker's additions.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate, readTemplate, sanitizedBytes } from '../../server/convert/index.ts';
import { EVIL, EVIL_FONT, EVIL_STYLE_ID, hostileTemplate, SAFE_LINK } from '../helpers/hostile-template.ts';
import { validateDocx } from '../helpers/docx.ts';

const R_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/templates');
const PLAIN_ID = /^[\p{L}\p{N}_-]+$/u;

function elements(xml: string): Element[] {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const list = doc.getElementsByTagName('*');
  return Array.from({ length: list.length }, (_, i) => list.item(i)).filter((e): e is Element => e !== null);
}

/** Every finding that would let a package reach outside itself or dangle: returned as sentences, empty when clean. */
function externalFindings(docx: Uint8Array): string[] {
  const parts = unzipSync(docx);
  const found: string[] = [];
  for (const [name, bytes] of Object.entries(parts)) {
    if (!name.endsWith('.rels')) continue;
    const owner = name.replace('_rels/', '').replace(/\.rels$/, '');
    const ids = new Set<string>();
    for (const rel of elements(strFromU8(bytes)).filter((e) => e.localName === 'Relationship')) {
      ids.add(rel.getAttribute('Id') ?? '');
      const type = rel.getAttribute('Type') ?? '';
      const target = rel.getAttribute('Target') ?? '';
      const external = rel.getAttribute('TargetMode') === 'External' || /^[a-z]+:|^[\\/]{2}/i.test(target);
      if (external && !type.endsWith('/hyperlink')) found.push(`${name}: external ${type} → ${target}`);
    }
    const ownerBytes = parts[owner];
    if (!ownerBytes) continue;
    for (const el of elements(strFromU8(ownerBytes))) {
      for (let i = 0; i < el.attributes.length; i++) {
        const attr = el.attributes.item(i);
        if (attr?.namespaceURI === R_NS && !ids.has(attr.value)) found.push(`${owner}: ${el.tagName} ${attr.name}="${attr.value}" dangles`);
      }
    }
  }
  return found;
}

/** Style ids that are not plain identifiers and font names with CSS-breaking characters, in every part. */
function cssFindings(docx: Uint8Array): string[] {
  const found: string[] = [];
  for (const [name, bytes] of Object.entries(unzipSync(docx))) {
    if (!name.endsWith('.xml')) continue;
    for (const el of elements(strFromU8(bytes))) {
      for (const attr of ['w:styleId', 'w:val']) {
        const value = el.getAttribute(attr);
        if (value !== null && (attr === 'w:styleId' || /^(pStyle|rStyle|tblStyle|basedOn|next|link)$/.test(el.localName ?? '')) && !PLAIN_ID.test(value)) found.push(`${name}: ${el.tagName} ${value}`);
      }
      for (const attr of ['w:ascii', 'w:hAnsi', 'w:name', 'typeface']) {
        const value = el.getAttribute(attr);
        if (value !== null && /[;{}<>"'\\]/.test(value)) found.push(`${name}: ${el.tagName} ${attr}=${value}`);
      }
    }
  }
  return found;
}

const bases: Array<[string, () => Uint8Array]> = [
  ['the built-in template', () => defaultTemplate()],
  ['apaquarto.docx (corpus)', () => new Uint8Array(readFileSync(resolve(CORPUS, 'apaquarto.docx')))],
  ['office2007-academic-report.dotx (corpus)', () => new Uint8Array(readFileSync(resolve(CORPUS, 'office2007-academic-report.dotx')))],
];

describe.each(bases)('a hostile template built on %s', (_name, base) => {
  const hostile = hostileTemplate(base());

  it('the crafted template really carries the threats (the test would see them)', () => {
    expect(externalFindings(hostile).join('\n')).toMatch(/attachedTemplate[\s\S]*oleObject|oleObject[\s\S]*attachedTemplate/);
    expect(cssFindings(hostile).join('\n')).toContain(EVIL_STYLE_ID);
  });

  it('is read with a warning for each external relationship, style id and font name it had to change', () => {
    const template = readTemplate(hostile);
    const warnings = template.warnings.join('\n');
    for (const kind of ['attachedTemplate', 'oleObject', 'subDocument', 'image', 'aFChunk']) expect(warnings).toContain(`template_external_removed: ${kind}`);
    expect(warnings).toContain(`${EVIL}/t1221.dotm`);
    expect(warnings).not.toContain('hyperlink');
    expect(warnings).toContain(`template_style_renamed: style id ${JSON.stringify(EVIL_STYLE_ID)}`);
    expect(warnings).toContain(`template_font_renamed: font ${JSON.stringify(EVIL_FONT)}`);
  });

  it('the stored (sanitised) template has no external relationship but the hyperlink, nothing dangling, no CSS-breaking name, and is schema-valid', async () => {
    const clean = sanitizedBytes(hostile, readTemplate(hostile));
    expect(externalFindings(clean)).toEqual([]);
    expect(cssFindings(clean)).toEqual([]);
    expect(strFromU8(unzipSync(clean)['word/_rels/document.xml.rels'] ?? new Uint8Array())).toContain(SAFE_LINK);
    // Reading the clean template again changes nothing more.
    expect(readTemplate(clean).warnings).toEqual([]);
    const report = await validateDocx(clean);
    expect(report.ok, report.report).toBe(true);
  });

  it('every output made with it is clean too, the renamed style still applied and the hyperlink kept', async () => {
    const result = convert({ markdown: '# Title\n\nBody with a [link](https://example.org).\n', template: hostile, created: new Date('2026-01-01T00:00:00Z') });
    expect(externalFindings(result.docx)).toEqual([]);
    expect(cssFindings(result.docx)).toEqual([]);
    const document = strFromU8(unzipSync(result.docx)['word/document.xml'] ?? new Uint8Array());
    expect(document).not.toContain('attachedTemplate');
    expect(document).not.toContain('subDoc');
    expect(document).not.toContain('OLEObject');
    expect(document).toContain('w:val="A__body_display_none__b"');
    const settings = strFromU8(unzipSync(result.docx)['word/settings.xml'] ?? new Uint8Array());
    expect(settings).not.toContain('attachedTemplate');
    const report = await validateDocx(result.docx);
    expect(report.ok, report.report).toBe(true);
  });
});

describe('clean real templates', () => {
  for (const file of ['apaquarto.docx', 'gongwen-template-lite.dotx', 'ntu-dissertation-template.docx', 'office2007-academic-report.dotx', 'officedown-template-hdr-ftr.docx']) {
    it(`${file} is read without a warning and stored byte for byte as uploaded`, () => {
      const bytes = new Uint8Array(readFileSync(resolve(CORPUS, file)));
      const template = readTemplate(bytes);
      expect(template.warnings).toEqual([]);
      expect(sanitizedBytes(bytes, template)).toBe(bytes);
    });
  }
});
