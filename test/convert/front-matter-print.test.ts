// Front matter as a reader sees it (issue 32, item 7): a date printed as a date in the document's language, its
// value kept in the document properties; a first heading that repeats the printed title not printed a second time.
import { DOMParser, type Document as XmlDocument, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate } from '../../server/convert/index.ts';
import { printedDate } from '../../server/convert/compile/dates.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { partText, withParts } from '../helpers/hostile-template.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-02T03:04:05Z');
const parse = (xml: string): XmlDocument => new DOMParser().parseFromString(xml, 'text/xml');
const all = (root: XmlDocument | Element, name: string): Element[] => {
  const list = root.getElementsByTagNameNS(W, name);
  const out: Element[] = [];
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (el) out.push(el);
  }
  return out;
};
const text = (el: Element): string =>
  all(el, 't')
    .map((t) => t.textContent ?? '')
    .join('');
const styleOf = (p: Element): string => all(p, 'pStyle')[0]?.getAttributeNS(W, 'val') ?? '';
/** The body's paragraphs as `style: text`. */
const lines = (docx: Uint8Array): string[] =>
  all(parse(part(docx, 'word/document.xml')), 'p').map((p) => `${styleOf(p)}: ${text(p)}`);
const core = (docx: Uint8Array, name: string): string | undefined =>
  new RegExp(`<${name}[^>]*>([^<]*)</${name}>`).exec(part(docx, 'docProps/core.xml'))?.[1];

describe('a front matter date (issue 32, item 7)', () => {
  const markdown = (front: string) => `---\ntitle: Report\n${front}\n---\n\nText.\n`;

  it('is printed as a date in English when neither the front matter nor the template names a language', async () => {
    const result = await convert({ markdown: markdown('date: 2023-04-18T03:00:00.000Z'), created });
    expect(lines(result.docx)).toContain('Date: April 18, 2023');
    expect(lines(result.docx).join('\n')).not.toContain('2023-04-18');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('keeps its value in the document properties (dcterms:created); modified stays the conversion time', async () => {
    const result = await convert({ markdown: markdown('date: 2023-04-18T03:00:00.000Z'), created });
    expect(core(result.docx, 'dcterms:created')).toBe('2023-04-18T03:00:00.000Z');
    expect(core(result.docx, 'dcterms:modified')).toBe('2026-01-02T03:04:05Z');
    const day = await convert({ markdown: markdown('date: 2023-04-18'), created });
    expect(core(day.docx, 'dcterms:created')).toBe('2023-04-18');
  });

  it("is printed in the front matter's `lang`, which becomes the document's dc:language", async () => {
    const british = await convert({ markdown: markdown('date: 2023-04-18\nlang: en-GB'), created });
    expect(lines(british.docx)).toContain('Date: 18 April 2023');
    expect(core(british.docx, 'dc:language')).toBe('en-GB');
    expect(british.warnings.join('\n')).not.toContain('front_matter_ignored');
    const german = await convert({ markdown: markdown('date: 2023-04-18\nlang: de-DE'), created });
    expect(lines(german.docx)).toContain('Date: 18. April 2023');
  });

  it("is printed in the template's language (its Normal style's w:lang) when the front matter names none", async () => {
    const base = defaultTemplate();
    const styles = partText(base, 'word/styles.xml').replace(
      /(<w:style w:type="paragraph" w:styleId="Normal" w:default="1"><w:name w:val="Normal"\/><w:qFormat\/>)/,
      '$1<w:rPr><w:lang w:val="fr-FR"/></w:rPr>',
    );
    expect(styles).toContain('fr-FR');
    const template = withParts(base, { 'word/styles.xml': styles });
    const result = await convert({ markdown: markdown('date: 2023-04-18T03:00:00.000Z'), template, created });
    expect(lines(result.docx)).toContain('Date: 18 avril 2023');
  });

  it('prints the day written, whatever the time zone; text that is not a date as written', async () => {
    const late = await convert({ markdown: markdown('date: 2023-04-18T23:30:00-05:00'), created });
    expect(lines(late.docx)).toContain('Date: April 18, 2023');
    const spring = await convert({ markdown: markdown('date: Spring 2023'), created });
    expect(lines(spring.docx)).toContain('Date: Spring 2023');
    expect(core(spring.docx, 'dcterms:created')).toBe('2026-01-02T03:04:05Z');
    const impossible = await convert({ markdown: markdown('date: 2023-02-30'), created });
    expect(lines(impossible.docx)).toContain('Date: 2023-02-30');
  });

  it('a YAML timestamp (a Date) is printed as its day; an unknown language falls back to English', () => {
    expect(printedDate(new Date('2023-04-18T03:00:00Z'), 'en-GB')).toBe('18 April 2023');
    expect(printedDate('2023-04-18', 'xx-unknown')).toBe('April 18, 2023');
  });
});

describe('a first heading that repeats the front matter title (issue 32, item 7)', () => {
  const markdown =
    '---\ntitle: Welcome to  Docwright\nauthor: Ann\n---\n\n[TOC]\n\n# Welcome to Docwright\n\nSee [the top](#welcome-to-docwright).\n\n## Next\n\nMore.\n';

  it('is printed once: the title line stays (above the author), the heading goes', async () => {
    const result = await convert({ markdown, created });
    const printed = lines(result.docx).filter((l) => /Welcome/i.test(l) && !l.startsWith('TOC'));
    expect(printed).toEqual(['Title: Welcome to  Docwright']);
    const body = lines(result.docx);
    expect(body.indexOf('Title: Welcome to  Docwright')).toBeLessThan(body.indexOf('Author: Ann'));
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it("the title line holds the heading's bookmark, so links to the heading still land; the TOC lists the rest", async () => {
    const result = await convert({ markdown, created });
    expect(result.warnings.join('\n')).not.toContain('broken_anchor');
    const doc = parse(part(result.docx, 'word/document.xml'));
    const title = all(doc, 'p').find((p) => styleOf(p) === 'Title');
    // Word's bookmark names have no hyphens (anchors.ts).
    expect(all(title as Element, 'bookmarkStart').map((b) => b.getAttributeNS(W, 'name'))).toEqual([
      'welcome_to_docwright',
    ]);
    const toc = lines(result.docx).filter((l) => l.startsWith('TOC'));
    expect(toc).toEqual(['TOC2: Next']);
  });

  it('is printed once when no title style is mapped too: the title in built-in formatting (warned), the heading goes', async () => {
    const result = await convert({ markdown, mapping: { rules: { heading: { '1': 'Heading 1' } } }, created });
    const printed = lines(result.docx).filter((l) => /Welcome/i.test(l) && !l.startsWith('TOC'));
    expect(printed).toEqual([': Welcome to  Docwright']);
    expect(result.warnings.some((w) => w.startsWith('missing_style: Title'))).toBe(true);
  });

  it('stays a heading when it says something else', async () => {
    const result = await convert({ markdown: '---\ntitle: Report\n---\n\n# Summary\n', created });
    expect(lines(result.docx)).toEqual(['Title: Report', 'Heading1: Summary']);
  });
});
