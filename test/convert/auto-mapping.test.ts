// The mapping matched to a template's styles (issue 32 item 6): by Word's name, by the names other languages and
// producers give Word's built-in styles, by custom names holding a role word, and by what a style looks like, in the
// order docs/templates.md documents; and how many elements that matched. Real templates of the shared corpus and
// templates made from the built-in one with a styles part of our own (its numbering part kept).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchedCount, suggestRules } from '../../server/convert/auto-mapping.ts';
import { defaultTemplate } from '../../server/convert/index.ts';
import { readTemplate } from '../../server/convert/template/read.ts';
import { withParts } from '../helpers/hostile-template.ts';

const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/templates');
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** A template: the built-in one with these styles (w:style elements) as its styles part. */
function templateWithStyles(styles: string, numbering?: string): Uint8Array {
  return withParts(defaultTemplate(), {
    'word/styles.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}">${styles}</w:styles>`,
    ...(numbering === undefined ? {} : { 'word/numbering.xml': numbering }),
  });
}

const style = (type: string, id: string, name: string, inner = '', extra = '') =>
  `<w:style w:type="${type}" w:styleId="${id}"${extra}><w:name w:val="${name}"/>${inner}</w:style>`;

const stylesOf = (bytes: Uint8Array) => readTemplate(bytes).styles;

describe('suggestRules: what the template has', () => {
  it('APA: Title, Subtitle, Author, Date and Caption are mapped (the template has them)', () => {
    const rules = suggestRules(stylesOf(new Uint8Array(readFileSync(resolve(CORPUS, 'apaquarto.docx')))));
    expect(rules).toMatchObject({
      title: 'Title',
      subtitle: 'Subtitle',
      author: 'Author',
      date: 'Date',
      // As the template names it (Word's built-in "caption", shown as "Caption").
      caption: 'caption',
    });
  });

  it('names Word gives its built-in styles in Chinese (as WPS and LibreOffice write them) are matched', () => {
    const styles = [
      style('paragraph', 'a', '正文', '', ' w:default="1"'),
      style('paragraph', '1', '标题 1', '<w:basedOn w:val="a"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr>'),
      style('paragraph', '2', '标题 2', '<w:basedOn w:val="a"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr>'),
      style('paragraph', 'a3', '标题', '<w:basedOn w:val="a"/>'),
      style('paragraph', 'a5', '副标题', '<w:basedOn w:val="a"/>'),
      style('paragraph', 'a9', '列表段落', '<w:basedOn w:val="a"/>'),
      style('paragraph', 'aa', '纯文本', '<w:basedOn w:val="a"/>'),
      style('paragraph', 'ab', '引用', '<w:basedOn w:val="a"/>'),
      style('paragraph', 'ac', '题注', '<w:basedOn w:val="a"/>'),
      style('paragraph', 'ad', '日期', '<w:basedOn w:val="a"/>'),
      style('paragraph', 'ae', '脚注文本', '<w:basedOn w:val="a"/>'),
      style('character', 'af', '超链接'),
      style('character', 'b0', '要点'),
      style('character', 'b1', '强调'),
      style('table', 'b2', '网格型'),
    ].join('');
    expect(suggestRules(stylesOf(templateWithStyles(styles)))).toEqual({
      heading: { '1': '标题 1', '2': '标题 2' },
      paragraph: '正文',
      list_bullet: '列表段落',
      list_ordered: '列表段落',
      code_block: '纯文本',
      blockquote: '引用',
      caption: '题注',
      title: '标题',
      subtitle: '副标题',
      date: '日期',
      table: { style: '网格型', header_row: true },
      footnote_text: '脚注文本',
      link: '超链接',
      strong: '要点',
      emphasis: '强调',
    });
  });

  it('German and French names of the same styles are matched', () => {
    const de = [
      style('paragraph', 'Standard', 'Standard', '', ' w:default="1"'),
      style('paragraph', 'Textkrper', 'Textkörper'),
      style('paragraph', 'berschrift1', 'Überschrift 1'),
      style('paragraph', 'Aufzhlungszeichen', 'Aufzählungszeichen'),
      style('paragraph', 'Listennummer', 'Listennummer'),
      style('paragraph', 'NurText', 'Nur Text'),
      style('paragraph', 'Zitat', 'Zitat'),
      style('paragraph', 'Titel', 'Titel'),
      style('paragraph', 'Untertitel', 'Untertitel'),
      style('paragraph', 'Beschriftung', 'Beschriftung'),
    ].join('');
    expect(suggestRules(stylesOf(templateWithStyles(de)))).toMatchObject({
      heading: { '1': 'Überschrift 1' },
      paragraph: 'Textkörper',
      list_bullet: 'Aufzählungszeichen',
      list_ordered: 'Listennummer',
      code_block: 'Nur Text',
      blockquote: 'Zitat',
      title: 'Titel',
      subtitle: 'Untertitel',
      caption: 'Beschriftung',
    });
    const fr = [
      style('paragraph', 'Normal', 'Normal', '', ' w:default="1"'),
      style('paragraph', 'Titre1', 'Titre 1'),
      style('paragraph', 'Paragraphedeliste', 'Paragraphe de liste'),
      style('paragraph', 'Textebrut', 'Texte brut'),
      style('paragraph', 'Citation', 'Citation'),
      style('paragraph', 'Titre', 'Titre'),
      style('paragraph', 'Sous-titre', 'Sous-titre'),
      style('paragraph', 'Lgende', 'Légende'),
    ].join('');
    expect(suggestRules(stylesOf(templateWithStyles(fr)))).toMatchObject({
      heading: { '1': 'Titre 1' },
      list_bullet: 'Paragraphe de liste',
      code_block: 'Texte brut',
      blockquote: 'Citation',
      title: 'Titre',
      subtitle: 'Sous-titre',
      caption: 'Légende',
    });
  });

  it('custom names holding a role word: "FEMA Text" for the body, "FEMA Bullet" for bulleted lists', () => {
    const styles = [
      style('paragraph', 'Normal', 'Normal', '', ' w:default="1"'),
      style('paragraph', 'FEMAText', 'FEMA Text', '<w:basedOn w:val="Normal"/>'),
      style('paragraph', 'FEMABullet', 'FEMA Bullet', '<w:basedOn w:val="FEMAText"/>'),
      style('paragraph', 'FEMANumbered', 'FEMA Numbered List', '<w:basedOn w:val="FEMAText"/>'),
      style('paragraph', 'FEMAHeading1', 'FEMA Heading 1', '<w:basedOn w:val="Normal"/>'),
      style('paragraph', 'FEMAQuote', 'FEMA Pull Quote', '<w:basedOn w:val="Normal"/>'),
      style('paragraph', 'FEMATitle', 'FEMA Document Title', '<w:basedOn w:val="Normal"/>'),
      style('paragraph', 'FEMAFootnote', 'FEMA Footnote Text', '<w:basedOn w:val="Normal"/>'),
    ].join('');
    expect(suggestRules(stylesOf(templateWithStyles(styles)))).toMatchObject({
      heading: { '1': 'FEMA Heading 1' },
      paragraph: 'FEMA Text',
      list_bullet: 'FEMA Bullet',
      list_ordered: 'FEMA Numbered List',
      blockquote: 'FEMA Pull Quote',
      title: 'FEMA Document Title',
      footnote_text: 'FEMA Footnote Text',
    });
  });

  it('by what a style looks like where names fail: outline level, based-on chain, numbering, a monospaced font', () => {
    const numbering = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="${W}">
      <w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl></w:abstractNum>
      <w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum>
      <w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
    </w:numbering>`;
    const styles = [
      style('paragraph', 'Base', 'Grundtext', '', ' w:default="1"'),
      style('paragraph', 'Chapter', 'Chapter', '<w:basedOn w:val="Base"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr>'),
      style('paragraph', 'ChapterCover', 'Chapter Opening', '<w:basedOn w:val="Chapter"/>'),
      style('paragraph', 'Section', 'Section', '<w:basedOn w:val="Base"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr>'),
      style(
        'paragraph',
        'Dots',
        'Dots',
        '<w:basedOn w:val="Base"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr>',
      ),
      style(
        'paragraph',
        'Steps',
        'Steps',
        '<w:basedOn w:val="Base"/><w:pPr><w:numPr><w:numId w:val="2"/></w:numPr></w:pPr>',
      ),
      style(
        'paragraph',
        'Mono',
        'Listing',
        '<w:basedOn w:val="Base"/><w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New"/></w:rPr>',
      ),
      style('character', 'Tt', 'Typewriter', '<w:rPr><w:rFonts w:ascii="Consolas"/></w:rPr>'),
    ].join('');
    expect(suggestRules(stylesOf(templateWithStyles(styles, numbering)))).toMatchObject({
      heading: { '1': 'Chapter', '2': 'Section' },
      paragraph: 'Grundtext',
      list_bullet: 'Dots',
      list_ordered: 'Steps',
      code_block: 'Listing',
      inline_code: 'Typewriter',
    });
  });

  it('a name wins over a look, and a style found by name for one element is not taken by look for another', () => {
    const styles = [
      style('paragraph', 'Normal', 'Normal', '', ' w:default="1"'),
      // Outline level 0 as Word gives Title in some templates: still the title, not heading 1.
      style('paragraph', 'Title', 'Title', '<w:pPr><w:outlineLvl w:val="0"/></w:pPr>'),
      style('paragraph', 'Chapter', 'Chapter', '<w:pPr><w:outlineLvl w:val="0"/></w:pPr>'),
    ].join('');
    const rules = suggestRules(stylesOf(templateWithStyles(styles)));
    expect(rules.title).toBe('Title');
    expect(rules.heading).toEqual({ '1': 'Chapter' });
  });
});

describe('matchedCount', () => {
  it('counts every element a mapping can name, the title block and caption too', () => {
    expect(matchedCount({ heading: { '1': 'A' }, paragraph: 'B', title: 'C', caption: 'D' })).toEqual({
      matched: 4,
      of: 26,
    });
  });
});
