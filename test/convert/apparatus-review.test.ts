// What reviewers of the rendered pages found in the scholarly apparatus (issue 34, review): titles of the lists of
// figures and tables, labels used twice or on the wrong kind, the bibliography's heading under number_sections, the
// space after a heading's number, the built-in Bibliography style's hanging indent.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-02T03:04:05Z');
const REFS = readFileSync(resolve(import.meta.dirname, '../fixtures/citations/refs.bib'), 'utf8');

const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');
const all = (root: Element | ReturnType<typeof parse>, name: string): Element[] =>
  Array.from(root.getElementsByTagNameNS(W, name));
const wAttr = (el: Element, name: string) => el.getAttributeNS(W, name) ?? '';
const textOf = (p: Element): string =>
  all(p, 't')
    .map((t) => t.textContent ?? '')
    .join('');
const paragraphs = (xml: string): Element[] => all(parse(xml), 'p');
const styleOf = (p: Element): string => {
  const pStyle = all(p, 'pStyle')[0];
  return pStyle ? wAttr(pStyle, 'val') : '';
};

const BODY = '![A cat](cat.png){#fig:cat}\n\n| a |\n|---|\n| 1 |\n\nTable: Sizes {#tbl:sizes}\n';

describe('lists of figures and tables have titles', () => {
  it('front matter lof/lot: "List of Figures" and "List of Tables" before each list, not headings', async () => {
    const result = await convert({
      markdown: `---\ntoc: true\nlof: true\nlot: true\n---\n\n# One\n\n${BODY}`,
      created,
    });
    const paras = paragraphs(part(result.docx, 'word/document.xml'));
    const texts = paras.map(textOf);
    const lof = texts.indexOf('List of Figures');
    const lot = texts.indexOf('List of Tables');
    expect(lof).toBeGreaterThan(-1);
    expect(texts[lof + 1]).toBe('Figure 1: A cat');
    expect(texts[lot + 1]).toBe('Table 1: Sizes');
    for (const at of [lof, lot]) {
      const p = paras[at] as Element;
      expect(styleOf(p)).not.toMatch(/^Heading/);
      expect(all(p, 'outlineLvl').map((o) => wAttr(o, 'val'))).not.toContain('0');
    }
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('in the document language, or the front matter lofTitle/lotTitle; [LOF]/[LOT] markers too', async () => {
    const de = await convert({ markdown: `---\nlang: de\n---\n\n[LOF]\n\n[LOT]\n\n${BODY}`, created });
    const deTexts = paragraphs(part(de.docx, 'word/document.xml')).map(textOf);
    expect(deTexts).toContain('Abbildungsverzeichnis');
    expect(deTexts).toContain('Tabellenverzeichnis');
    const own = await convert({
      markdown: `---\nlofTitle: Figures\nlotTitle: Tables\nlof: true\nlot: true\n---\n\n${BODY}`,
      created,
    });
    const texts = paragraphs(part(own.docx, 'word/document.xml')).map(textOf);
    expect(texts.slice(0, 4)).toEqual(['Figures', 'Figure 1: A cat', 'Tables', 'Table 1: Sizes']);
    expect(own.warnings.filter((w) => w.startsWith('front_matter_ignored'))).toEqual([]);
  });
});

describe('the table of contents title', () => {
  it('front matter toc-title (as pandoc) titles our table of contents, inside its content control, not listed', async () => {
    const result = await convert({
      markdown: '---\ntoc: true\ntoc-title: Contents\n---\n\n# One\n\n## Two\n',
      created,
    });
    const xml = part(result.docx, 'word/document.xml');
    const sdt = all(parse(xml), 'sdtContent')[0] as Element;
    const texts = all(sdt, 'p').map(textOf);
    expect(texts).toEqual(['Contents', 'One', 'Two']);
    expect(result.warnings).toEqual([]);
    const untitled = await convert({ markdown: '---\ntoc: true\n---\n\n# One\n', created });
    expect(
      all(all(parse(part(untitled.docx, 'word/document.xml')), 'sdtContent')[0] as Element, 'p').map(textOf),
    ).toEqual(['One']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});

describe('labels used twice or on the wrong kind are warned', () => {
  it('duplicate_label with the line of the second; the first keeps the label', async () => {
    const markdown =
      '# A {#sec:x}\n\n# B {#sec:x}\n\n![One](a.png){#fig:a}\n\n![Two](b.png){#fig:a}\n\n' +
      '| a |\n|---|\n| 1 |\n\nTable: T1 {#tbl:t}\n\n| b |\n|---|\n| 2 |\n\nTable: T2 {#tbl:t}\n\nSee @fig:a.\n';
    const result = await convert({ markdown, created });
    const lineOf = (warning: string) => result.warningDetails.find((w) => w.warning === warning)?.line;
    expect(lineOf('duplicate_label: fig:a')).toBe(7);
    expect(lineOf('duplicate_label: sec:x')).toBe(3);
    expect(lineOf('duplicate_label: tbl:t')).toBe(19);
    const texts = paragraphs(part(result.docx, 'word/document.xml')).map(textOf);
    expect(texts).toContain('See Figure 1.');
    expect(texts).toContain('Figure 2: Two');
  });

  it('a label of another kind on an equation, figure, table or listing: label_ignored', async () => {
    const markdown =
      '$$ x $$ {#fig:a}\n\n![Pic](a.png){#tbl:p}\n\n| a |\n|---|\n| 1 |\n\nTable: T {#fig:t}\n\n' +
      '```{#eq:c}\ncode\n```\n';
    const result = await convert({ markdown, created });
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        'label_ignored: fig:a on an equation (equations take eq:)',
        'label_ignored: tbl:p on a figure (figures take fig:)',
        'label_ignored: fig:t on a table (tables take tbl:)',
        'label_ignored: eq:c on a listing (listings take lst:)',
      ]),
    );
    expect(result.warningDetails.find((w) => w.warning.startsWith('label_ignored: fig:a'))?.line).toBe(1);
  });
});

describe('headings and the bibliography under number_sections', () => {
  it('the heading that holds the bibliography is unnumbered: added, the last heading, or before ::: {#refs}', async () => {
    const cases = [
      '---\nnumber_sections: true\n---\n\n# Intro\n\nAs [@doe2020] showed.\n',
      '---\nnumber_sections: true\n---\n\n# Intro\n\nAs [@doe2020] showed.\n\n# References\n',
      '---\nnumber_sections: true\n---\n\n# Intro\n\nAs [@doe2020] showed.\n\n# References\n\n::: {#refs}\n:::\n\n# After\n',
    ];
    for (const markdown of cases) {
      const result = await convert({ markdown, bibliography: { text: REFS }, created });
      const paras = paragraphs(part(result.docx, 'word/document.xml'));
      const heading = paras.find((p) => textOf(p) === 'References') as Element;
      expect(
        all(heading, 'numId').map((n) => wAttr(n, 'val')),
        markdown,
      ).toEqual(['0']);
      const intro = paras.find((p) => textOf(p) === 'Intro') as Element;
      expect(all(intro, 'numId')).toEqual([]);
    }
  });

  it('a space, not a tab, after a heading number (a centred heading reads "1 Intro", not "1.Intro")', async () => {
    const result = await convert({ markdown: '---\nnumber_sections: true\n---\n\n# Intro\n\n## Part\n', created });
    const numbering = parse(part(result.docx, 'word/numbering.xml'));
    const levels = all(numbering, 'lvl').filter((l) => all(l, 'pStyle').length > 0);
    expect(levels.length).toBeGreaterThan(0);
    for (const lvl of levels) expect(all(lvl, 'suff').map((s) => wAttr(s, 'val'))).toEqual(['space']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});

describe('number_sections where nothing can carry a number', () => {
  it('no heading style mapped: warned once, number_sections_ignored, not silently unnumbered', async () => {
    const mapping = { rules: { heading: { '1': 'No Such Heading', '2': 'Nor This' } } };
    const markdown = '---\nnumber_sections: true\n---\n\n# One\n\n## Two\n\n# Three\n';
    const result = await convert({ markdown, mapping, created });
    expect(result.warnings.filter((w) => w.startsWith('number_sections_ignored'))).toEqual([
      'number_sections_ignored: the template has no heading styles to number',
    ]);
    const plain = await convert({ markdown: '# One\n', mapping, created });
    expect(plain.warnings.filter((w) => w.startsWith('number_sections_ignored'))).toEqual([]);
    const numbered = await convert({ markdown, created });
    expect(numbered.warnings).toEqual([]);
  });
});

describe('the built-in template', () => {
  it('its Bibliography style hangs 0.5 in (720 twips), as the style added to templates lacking one', async () => {
    const result = await convert({ markdown: 'As [@doe2020] showed.\n', bibliography: { text: REFS }, created });
    const styles = all(parse(part(result.docx, 'word/styles.xml')), 'style');
    const bibliography = styles.find((s) => wAttr(s, 'styleId') === 'Bibliography') as Element;
    const ind = all(bibliography, 'ind')[0] as Element;
    expect([wAttr(ind, 'left'), wAttr(ind, 'hanging')]).toEqual(['720', '720']);
  });
});
