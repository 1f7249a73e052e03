// The title block filled into a template's own places: `{{title}}`-style placeholders (also split over runs) and
// content controls bound to the core properties, in the body that stays and in headers; printed where there is none.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DOMParser, XMLSerializer, type Element } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const created = new Date('2026-01-02T03:04:05Z');
const rules = { paragraph: 'Normal', title: 'Normal', subtitle: 'Normal', author: 'Normal', date: 'Normal' };

/** A cover page with a split `{{title}}`, an author control bound to dc:creator, `Date: {{date}}`, then the content. */
function coverTemplate(): Uint8Array {
  const authorControl =
    '<w:sdt><w:sdtPr><w:alias w:val="Author"/><w:showingPlcHdr/>' +
    '<w:dataBinding w:prefixMappings="xmlns:ns0=\'http://purl.org/dc/elements/1.1/\' xmlns:ns1=\'http://schemas.openxmlformats.org/package/2006/metadata/core-properties\'" w:xpath="/ns1:coreProperties[1]/ns0:creator[1]" w:storeItemID="{6C3C8BC8-F283-45AE-878A-BAB7291924A1}"/>' +
    '</w:sdtPr><w:sdtContent><w:p><w:r><w:rPr><w:i/></w:rPr><w:t>[Author</w:t></w:r><w:r><w:t> name]</w:t></w:r></w:p>' +
    '<w:p><w:r><w:t>second prompt line</w:t></w:r></w:p></w:sdtContent></w:sdt>';
  const document =
    `${XML}<w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>` +
    '<w:p><w:r><w:rPr><w:b/></w:rPr><w:t>{{ti</w:t></w:r><w:r><w:t>tle}}</w:t></w:r></w:p>' +
    authorControl +
    '<w:p><w:r><w:t xml:space="preserve">Date: {{date}}</w:t></w:r></w:p>' +
    '<w:p><w:r><w:t>{{content}}</w:t></w:r></w:p>' +
    '<w:sectPr><w:headerReference w:type="default" r:id="rIdH"/><w:pgSz w:w="11906" w:h="16838"/>' +
    '<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>' +
    '</w:body></w:document>';
  const header = `${XML}<w:hdr xmlns:w="${W}"><w:p><w:r><w:t xml:space="preserve">Running head: {{title}}</w:t></w:r></w:p></w:hdr>`;
  return zipSync({
    '[Content_Types].xml': strToU8(
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/></Types>`,
    ),
    '_rels/.rels': strToU8(
      `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    ),
    'word/_rels/document.xml.rels': strToU8(
      `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdH" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/></Relationships>`,
    ),
    'word/document.xml': strToU8(document),
    'word/header1.xml': strToU8(header),
  });
}

/** The text of each body paragraph (content controls' paragraphs included), in order. */
function paragraphs(xml: string): string[] {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  return Array.from(doc.getElementsByTagNameNS(W, 'p')).map((p: Element) =>
    Array.from(p.getElementsByTagNameNS(W, 't'))
      .map((t) => t.textContent ?? '')
      .join(''),
  );
}

const markdown = `---
title: The Engine
subtitle: A history
author: [Ada Lovelace, Charles Babbage]
date: 1843-07-01
---
Body mentions {{title}} literally.
`;

describe('a template with places for the title block', () => {
  const template = coverTemplate();

  it('fills the placeholders and the bound control instead of printing those lines; prints the rest', async () => {
    const result = await convert({ markdown, template, mapping: rules, created });
    const xml = part(result.docx, 'word/document.xml');
    expect(paragraphs(xml)).toEqual([
      'The Engine',
      'Ada Lovelace, Charles Babbage',
      // A date fills its place as it is printed: the day in the document's language (issue 32).
      'Date: July 1, 1843',
      // The subtitle has no place in the template: printed at the top of the content.
      'A history',
      // A user's own text is never a placeholder.
      'Body mentions {{title}} literally.',
    ]);
    // The control shows its value now, not Word's grey prompt; it stays bound to the (filled) core property.
    expect(xml).not.toContain('showingPlcHdr');
    expect(xml).toContain('w:dataBinding');
    expect(part(result.docx, 'docProps/core.xml')).toContain('<dc:creator>Ada Lovelace, Charles Babbage</dc:creator>');
    // The split placeholder keeps the formatting of its first run.
    expect(xml).toContain('<w:b/></w:rPr><w:t xml:space="preserve">The Engine</w:t>');
    expect(paragraphs(part(result.docx, 'word/header1.xml'))).toEqual(['Running head: The Engine']);
    // Every key is used (the template has no styles at all: Normal is missing).
    expect(result.warnings).toEqual(['missing_style: Normal']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('without front matter, empties the placeholders and leaves the control as the template has it', async () => {
    const result = await convert({ markdown: 'Just text.\n', template, mapping: rules, created });
    expect(paragraphs(part(result.docx, 'word/document.xml'))).toEqual([
      '',
      '[Author name]',
      'second prompt line',
      'Date: ',
      'Just text.',
    ]);
    expect(paragraphs(part(result.docx, 'word/header1.xml'))).toEqual(['Running head: ']);
  });

  it('gives the same bytes for the same input (the template read once is not changed by a fill)', async () => {
    const first = (await convert({ markdown, template, mapping: rules, created })).docx;
    await convert({ markdown: '---\ntitle: Other\n---\nx\n', template, mapping: rules, created });
    expect(
      Buffer.from((await convert({ markdown, template, mapping: rules, created })).docx).equals(Buffer.from(first)),
    ).toBe(true);
  });
});

/** The shared corpus's Word 2007 report template, with a `{{content}}` paragraph added at the end of its body. */
function academicReportWithContent(): Uint8Array {
  const path = resolve(import.meta.dirname, '../../../shared/corpus/templates/office2007-academic-report.dotx');
  const files = unzipSync(new Uint8Array(readFileSync(path)));
  const doc = new DOMParser().parseFromString(strFromU8(files['word/document.xml'] ?? new Uint8Array()), 'text/xml');
  const body = doc.getElementsByTagNameNS(W, 'body').item(0);
  const sectPr = body ? Array.from(body.childNodes).find((n) => n.nodeName === 'w:sectPr') : undefined;
  const p = doc.createElementNS(W, 'w:p');
  const r = doc.createElementNS(W, 'w:r');
  const t = doc.createElementNS(W, 'w:t');
  t.textContent = '{{content}}';
  r.appendChild(t);
  p.appendChild(r);
  body?.insertBefore(p, sectPr ?? null);
  files['word/document.xml'] = strToU8(new XMLSerializer().serializeToString(doc));
  return zipSync(files);
}

describe("a real template's content controls (Word 2007 academic report, kept with {{content}})", () => {
  it('fills its Title, Subject and Author controls and prints none of them again', async () => {
    const result = await convert({
      markdown,
      template: academicReportWithContent(),
      mapping: { title: 'Title', subtitle: 'Subtitle', author: 'Title', paragraph: 'Normal' },
      created,
    });
    const xml = part(result.docx, 'word/document.xml');
    const texts = paragraphs(xml);
    // Its two Title controls (cover and first page) and its Subject controls show the front matter's values.
    expect(texts.filter((text) => text === 'The Engine').length).toBe(2);
    // Two Subject controls, one Author control: each value stands only where the template has its place.
    expect(texts.filter((text) => text === 'A history').length).toBe(2);
    expect(texts.filter((text) => text === 'Ada Lovelace, Charles Babbage').length).toBe(1);
    expect(texts).not.toContain('[Document Title]');
    expect(texts.at(-1)).toBe('Body mentions {{title}} literally.');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
