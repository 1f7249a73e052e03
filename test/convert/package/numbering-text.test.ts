// The list numbering merged as text (numbering-text.ts) writes what the DOM merge (numbering.ts) writes, byte for
// byte, and renumbers the list references alike: on the built-in template's and every corpus template's numbering
// part, and on those parts laid out every other way the text merge must meet (w:numIdMacAtCleanup, no w:num, the
// w15 namespace undeclared, a list style carrying numbering); where it declines (w15 bound elsewhere, w under
// another prefix) the DOM merge still writes the part.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Document as XmlDocument } from '@xmldom/xmldom';
import { Document } from 'docx';
import { strFromU8, strToU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { defaultTemplate, resolveStyles, DEFAULT_RULES } from '../../../server/convert/index.ts';
import { elementOptions } from '../../../server/convert/element-options.ts';
import { toDocx } from '../../../server/convert/compile/index.ts';
import { parseMarkdown } from '../../../server/convert/parse/index.ts';
import { readTemplate } from '../../../server/convert/template/read.ts';
import { streamedParts } from '../../../server/convert/package/body-stream.ts';
import { parsePart, serializePart } from '../../../server/convert/package/dom.ts';
import { mergeNumberingSites, type NumberingSite } from '../../../server/convert/package/numbering.ts';
import {
  generatedNumberingText,
  mergeNumberingText,
  type GeneratedNumberingText,
} from '../../../server/convert/package/numbering-text.ts';
import { docxCompiler } from '../../../server/convert/package/zip.ts';

const TEMPLATES = join(import.meta.dirname, '../../../../shared/corpus/templates');
const W15 = 'http://schemas.microsoft.com/office/word/2012/wordml';

const LISTS = [
  '- one\n- two\n  - nested\n    1. deeper\n',
  '3. three\n4. four\n',
  'Between.',
  '1. again\n   1. inner\n',
  '- [ ] task\n- [x] done',
  '> - quoted\n> - list',
].join('\n\n');

/** docx's numbering for LISTS, laid out as the package step lays it out (its body first: list instances). */
function generated(): { text: GeneratedNumberingText; document: () => XmlDocument } {
  const template = readTemplate(defaultTemplate());
  const compiled = toDocx(parseMarkdown(LISTS), {
    styles: resolveStyles(DEFAULT_RULES, template.styles).styles,
    textWidthTwips: template.textWidthTwips,
    options: elementOptions(DEFAULT_RULES),
    templateFields: new Set(),
  });
  const file = new Document({ numbering: compiled.numbering, sections: [{ children: compiled.children }] });
  const compiler = docxCompiler();
  const formatter = (compiler as unknown as { formatter: { format(input: unknown, context: unknown): unknown } })
    .formatter;
  const view = (file as unknown as { Document: { View: unknown } }).Document;
  formatter.format(view.View, { viewWrapper: view, file, stack: [] });
  const parts = streamedParts(file, compiler, true, generatedNumberingText);
  if (!parts?.numbering) throw new Error('the numbering was not written as text');
  return parts.numbering;
}

/** Sites for every list instance docx made: plain, nested, and (with `styleId`) under a style. */
function sites(ids: readonly string[], styleId: string): { sites: NumberingSite[]; log: string[] } {
  const log: string[] = [];
  const out = ids.flatMap((numId, i) =>
    ['0', '1'].map((ilvl) => ({
      numId,
      ilvl,
      styleId: i % 2 === 0 ? styleId : '',
      setNumId: (value: string) => log.push(`${numId}/${ilvl} numId ${value}`),
      setIlvl: (value: string) => log.push(`${numId}/${ilvl} ilvl ${value}`),
    })),
  );
  return { sites: out, log };
}

/** The template's styles with ListBullet carrying the numbering of the part's first w:num (when it has one). */
function stylesWithListNumbering(styles: string, numbering: string): string {
  const numId = /<w:num w:numId="(\d+)"/.exec(numbering)?.[1];
  if (!numId) return styles;
  return styles.replace(
    /(<w:style [^>]*w:styleId="ListBullet"[^>]*>)([\s\S]*?)(<\/w:style>)/,
    (_, open: string, body: string, close: string) =>
      `${open}${body.replace(/<w:pPr>[\s\S]*?<\/w:pPr>|<w:pPr\/>/, '')}<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="${numId}"/></w:numPr></w:pPr>${close}`,
  );
}

function partsOf(template: Uint8Array): { numbering?: string; styles?: string } {
  const files = unzipSync(template);
  const text = (path: string) => (files[path] ? strFromU8(files[path]) : undefined);
  return { numbering: text('word/numbering.xml'), styles: text('word/styles.xml') };
}

const variants = (numbering: string): [string, string][] => [
  ['as it is', numbering],
  ['with w:numIdMacAtCleanup', numbering.replace('</w:numbering>', '<w:numIdMacAtCleanup w:val="3"/></w:numbering>')],
  ['without w:num', numbering.replace(/<w:num [\s\S]*?<\/w:num>|<w:num [^>]*\/>/g, '')],
  [
    'w15 undeclared',
    numbering
      .replace(/ xmlns:w15="[^"]*"/, '')
      .replace(/ w15:\w+="[^"]*"/g, '')
      .replace(/(mc:Ignorable="[^"]*)\bw15\b ?/, '$1'),
  ],
  ['empty', '<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>'],
];

describe('the numbering merged as text', () => {
  const templates: [string, Uint8Array][] = [
    ['built-in', defaultTemplate()],
    ...readdirSync(TEMPLATES)
      .filter((name) => /\.(docx|dotx)$/.test(name))
      .map((name): [string, Uint8Array] => [name, new Uint8Array(readFileSync(join(TEMPLATES, name)))]),
  ];

  it('writes what the DOM merge writes, with the same list references, on every template and layout', () => {
    let compared = 0;
    let styledLists = 0;
    for (const [name, bytes] of templates) {
      const { numbering, styles } = partsOf(bytes);
      if (!numbering) continue;
      for (const [layout, part] of variants(numbering)) {
        for (const styleId of ['', 'ListBullet']) {
          const stylesXml = styles && styleId ? stylesWithListNumbering(styles, part) : styles;
          const stylesDoc = stylesXml ? parsePart(stylesXml, 'word/styles.xml') : null;
          const label = `${name}, ${layout}${styleId ? ', ListBullet numbered' : ''}`;
          const fromDocx = generated();
          const ids = [...fromDocx.text.nums.keys()];
          const viaText = sites(ids, styleId);
          const partBytes = strToU8(part);
          const text = mergeNumberingText(partBytes, 'word/numbering.xml', fromDocx.text, viaText.sites, stylesDoc);
          expect(text, label).toBeDefined();
          // Its parse and its text around our definitions are kept with the part's bytes: a second merge gives the same.
          const again = sites(ids, styleId);
          expect(mergeNumberingText(partBytes, 'word/numbering.xml', generated().text, again.sites, stylesDoc)).toBe(
            text,
          );
          expect(again.log, label).toEqual(viaText.log);
          const viaDom = sites(ids, styleId);
          const dom = mergeNumberingSites(
            parsePart(part, 'word/numbering.xml'),
            generated().document(),
            viaDom.sites,
            stylesDoc,
          );
          expect(dom, label).not.toBeNull();
          expect(text, label).toBe(serializePart(dom as XmlDocument));
          expect(viaText.log, label).toEqual(viaDom.log);
          // A list under the numbered style: a w:num of ours on the abstract numbering of the style's w:num.
          const abstract = /<w:num w:numId="\d+"[^>]*>\s*<w:abstractNumId w:val="(\d+)"/.exec(part)?.[1];
          const onIt = (xml: string) => xml.split(`<w:abstractNumId w:val="${abstract ?? '-'}"/>`).length;
          if (styleId && abstract && onIt(text ?? '') > onIt(part)) styledLists += 1;
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThanOrEqual(40);
    // Some comparisons went through a list style's own numbering (its w:num on the template's abstract numbering).
    expect(styledLists).toBeGreaterThan(0);
  });

  it('declines a part whose w15 is bound elsewhere, whose w namespace has another prefix, whose w:numIdMacAtCleanup comes before its w:num, or over 64 KB; the DOM merge writes it', () => {
    const { numbering = '' } = partsOf(defaultTemplate());
    expect(numbering).toContain('<w:num ');
    for (const [label, part] of [
      [
        'w:numIdMacAtCleanup before the first w:num',
        numbering.replace('<w:num ', '<w:numIdMacAtCleanup w:val="3"/><w:num '),
      ],
      ['over 64 KB', numbering.replace('</w:numbering>', `<!--${'x'.repeat(70_000)}--></w:numbering>`)],
      ['w15 elsewhere', numbering.replace(`xmlns:w15="${W15}"`, 'xmlns:w15="urn:elsewhere"')],
      [
        'w as ns0',
        numbering
          .replaceAll('<w:', '<ns0:')
          .replaceAll('</w:', '</ns0:')
          .replaceAll(' w:', ' ns0:')
          .replaceAll('xmlns:w=', 'xmlns:ns0='),
      ],
    ] as const) {
      const fromDocx = generated();
      const ids = [...fromDocx.text.nums.keys()];
      expect(
        mergeNumberingText(strToU8(part), 'word/numbering.xml', fromDocx.text, sites(ids, '').sites, null),
        label,
      ).toBeUndefined();
      const dom = mergeNumberingSites(
        parsePart(part, 'word/numbering.xml'),
        generated().document(),
        sites(ids, '').sites,
        null,
      );
      expect(dom, label).not.toBeNull();
    }
  });

  /** The built-in template's part with its first list ids set to these, merged with docx's both ways (the same text). */
  const mergedWithIds = (numId: string, abstractNumId: string): string | undefined => {
    const { numbering = '' } = partsOf(defaultTemplate());
    const part = numbering
      .replace(/w:numId="\d+"/, `w:numId="${numId}"`)
      .replace(/w:abstractNumId="\d+"/, `w:abstractNumId="${abstractNumId}"`);
    const fromDocx = generated();
    const ids = [...fromDocx.text.nums.keys()];
    const text = mergeNumberingText(strToU8(part), 'word/numbering.xml', fromDocx.text, sites(ids, '').sites, null);
    const dom = mergeNumberingSites(
      parsePart(part, 'word/numbering.xml'),
      generated().document(),
      sites(ids, '').sites,
      null,
    );
    expect(text).toBe(serializePart(dom as XmlDocument));
    return text;
  };

  it('numbers past a template whose ids are past 32 bits, with plain decimal ids of its own, both ways', () => {
    const text = mergedWithIds('99999999999999999999999', '88888888888888888888888');
    const values = [...(text ?? '').matchAll(/w:(?:numId|abstractNumId)="([^"]*)"/g)].map((m) => m[1] ?? '');
    expect(values.filter((v) => !/^\d+$/.test(v))).toEqual([]);
    expect(values.filter((v) => v.length < 12).every((v) => Number(v) < 2 ** 31)).toBe(true);
  });

  it('keeps ids within 32 bits past a template whose ids are at the very top of them, both ways', () => {
    const text = mergedWithIds(String(2 ** 31 - 1), String(2 ** 31 - 1));
    for (const kind of ['numId', 'abstractNumId']) {
      const values = [...(text ?? '').matchAll(new RegExp(`<w:(?:num|abstractNum) [^>]*w:${kind}="([^"]*)"`, 'g'))].map(
        (m) => Number(m[1]),
      );
      expect(values.length).toBeGreaterThan(1);
      expect(values.every((v) => Number.isInteger(v) && v >= 0 && v < 2 ** 31)).toBe(true);
      expect(new Set(values).size).toBe(values.length);
    }
  });
});
