import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import {
  AlignmentType,
  BorderStyle,
  Document,
  Footer,
  LineRuleType,
  PageNumber,
  Paragraph,
  ShadingType,
  TextRun,
  type IStylesOptions,
} from 'docx';
import { TOKEN_KINDS, TOKEN_THEME } from './highlight/tokens.ts';
import { docxParts, zipParts } from './package/index.ts';

import { DEFAULT_TEMPLATE_NAME } from './default-rules.ts';

export { DEFAULT_MAPPING_NAME, DEFAULT_RULES, DEFAULT_TEMPLATE_NAME } from './default-rules.ts';

const FONT = 'Calibri';
const MONO = 'Consolas';
const ACCENT = '1F3864';
const headingSizes = [32, 28, 26, 24, 22, 22];

const styles: IStylesOptions = {
  default: {
    document: {
      run: { font: FONT, size: 22 },
      paragraph: { spacing: { after: 120, line: 276, lineRule: LineRuleType.AUTO } },
    },
  },
  paragraphStyles: [
    ...headingSizes.map((size, i) => ({
      id: `Heading${i + 1}`,
      name: `heading ${i + 1}`,
      basedOn: 'Normal',
      next: 'BodyText',
      quickFormat: true,
      run: { size, bold: true, color: ACCENT, italics: i === 5 },
      paragraph: {
        spacing: { before: i === 0 ? 360 : 240, after: 120 },
        keepNext: true,
        keepLines: true,
        outlineLevel: i,
      },
    })),
    { id: 'BodyText', name: 'Body Text', basedOn: 'Normal', quickFormat: true, paragraph: { spacing: { after: 120 } } },
    {
      id: 'ListBullet',
      name: 'List Bullet',
      basedOn: 'Normal',
      paragraph: { spacing: { after: 60 }, contextualSpacing: true },
    },
    {
      id: 'ListNumber',
      name: 'List Number',
      basedOn: 'Normal',
      paragraph: { spacing: { after: 60 }, contextualSpacing: true },
    },
    {
      id: 'CodeBlock',
      name: 'Code Block',
      basedOn: 'Normal',
      run: { font: MONO, size: 18 },
      paragraph: {
        spacing: { before: 0, after: 0, line: 240, lineRule: LineRuleType.AUTO },
        shading: { type: ShadingType.CLEAR, color: 'auto', fill: 'F2F2F2' },
      },
    },
    {
      id: 'Quote',
      name: 'Quote',
      basedOn: 'Normal',
      quickFormat: true,
      run: { italics: true, color: '404040' },
      paragraph: {
        indent: { left: 720 },
        border: { left: { style: BorderStyle.SINGLE, size: 12, color: 'A0A0A0', space: 8 } },
      },
    },
    // The title block (front matter title, subtitle, author, date), as pandoc's reference document names its styles.
    {
      id: 'Title',
      name: 'Title',
      basedOn: 'Normal',
      next: 'BodyText',
      quickFormat: true,
      run: { size: 52, color: ACCENT },
      paragraph: { spacing: { before: 0, after: 120 }, keepNext: true },
    },
    {
      id: 'Subtitle',
      name: 'Subtitle',
      basedOn: 'Normal',
      next: 'BodyText',
      quickFormat: true,
      run: { size: 30, color: '595959' },
      paragraph: { spacing: { after: 240 }, keepNext: true },
    },
    {
      id: 'Author',
      name: 'Author',
      basedOn: 'Normal',
      next: 'BodyText',
      run: { size: 24 },
      paragraph: { spacing: { after: 60 }, keepNext: true },
    },
    {
      id: 'Date',
      name: 'Date',
      basedOn: 'Normal',
      next: 'BodyText',
      run: { size: 24, color: '595959' },
      paragraph: { spacing: { after: 360 }, keepNext: true },
    },
    // The front matter abstract and keywords after the title block (compile/abstract.ts), as pandoc's reference names it.
    {
      id: 'Abstract',
      name: 'Abstract',
      basedOn: 'Normal',
      next: 'BodyText',
      run: { size: 20 },
      paragraph: { indent: { left: 720, right: 720 }, spacing: { after: 120 } },
    },
    // An image's title under it (docs/images.md); Word's own name for the style is "caption".
    {
      id: 'Caption',
      name: 'caption',
      basedOn: 'Normal',
      next: 'BodyText',
      quickFormat: true,
      run: { size: 18, italics: true, color: '44546A' },
      paragraph: { spacing: { before: 60, after: 200 } },
    },
    // A definition list's terms and definitions (pandoc's dialect), named as in pandoc's reference document.
    {
      id: 'DefinitionTerm',
      name: 'Definition Term',
      basedOn: 'Normal',
      next: 'Definition',
      run: { bold: true },
      paragraph: { spacing: { before: 120, after: 0 }, keepNext: true },
    },
    {
      id: 'Definition',
      name: 'Definition',
      basedOn: 'Normal',
      paragraph: { indent: { left: 720 }, spacing: { after: 120 } },
    },
    {
      id: 'Footer',
      name: 'footer',
      basedOn: 'Normal',
      paragraph: { alignment: AlignmentType.CENTER, spacing: { after: 0 } },
      run: { size: 18, color: '595959' },
    },
    {
      id: 'FootnoteText',
      name: 'footnote text',
      basedOn: 'Normal',
      run: { size: 18 },
      paragraph: { spacing: { after: 0 } },
    },
  ],
  characterStyles: [
    { id: 'Hyperlink', name: 'Hyperlink', run: { color: '0563C1', underline: {} } },
    { id: 'FootnoteReference', name: 'footnote reference', run: { superScript: true } },
    { id: 'Emphasis', name: 'Emphasis', quickFormat: true, run: { italics: true } },
    // Pandoc's name for inline code, so documents and templates made with pandoc map the same way.
    { id: 'VerbatimChar', name: 'Verbatim Char', run: { font: MONO } },
    // Highlighted code's token kinds, named and coloured as pandoc's (its "pygments" theme), to restyle in Word.
    // Each has code's font and size (9 pt, SPEC), so a token's run needs no direct formatting.
    ...TOKEN_KINDS.map((kind) => ({
      id: kind,
      name: kind,
      basedOn: 'VerbatimChar',
      run: { font: MONO, size: 18, ...TOKEN_THEME[kind] },
    })),
  ],
};

/** The table style is written as XML: docx has no option for table styles. */
const TABLE_STYLE =
  '<w:style w:type="table" w:styleId="DocwrightTable"><w:name w:val="Docwright Table"/><w:basedOn w:val="TableNormal"/><w:uiPriority w:val="59"/>' +
  '<w:pPr><w:spacing w:before="40" w:after="40"/></w:pPr>' +
  '<w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="A0A0A0"/><w:left w:val="single" w:sz="4" w:space="0" w:color="A0A0A0"/>' +
  '<w:bottom w:val="single" w:sz="4" w:space="0" w:color="A0A0A0"/><w:right w:val="single" w:sz="4" w:space="0" w:color="A0A0A0"/>' +
  '<w:insideH w:val="single" w:sz="4" w:space="0" w:color="A0A0A0"/><w:insideV w:val="single" w:sz="4" w:space="0" w:color="A0A0A0"/></w:tblBorders>' +
  '<w:tblCellMar><w:left w:w="108" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr>' +
  '<w:tblStylePr w:type="firstRow"><w:rPr><w:b/><w:color w:val="FFFFFF"/></w:rPr><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="1F3864"/></w:tcPr></w:tblStylePr>' +
  '</w:style>';
const TABLE_NORMAL =
  '<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:uiPriority w:val="99"/><w:semiHidden/><w:unhideWhenUsed/>' +
  '<w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** docx writes "Strong" as a paragraph style; Word's is a character style (bold), which is what a mapping may use. */
function strongAsCharacterStyle(xml: string): string {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  for (const style of Array.from(doc.getElementsByTagNameNS(W, 'style'))) {
    if (style.getAttributeNS(W, 'styleId') !== 'Strong') continue;
    style.setAttributeNS(W, 'w:type', 'character');
    for (const child of Array.from(style.childNodes)) {
      if (child.namespaceURI === W && ['basedOn', 'next', 'pPr'].includes(child.localName ?? ''))
        style.removeChild(child);
    }
  }
  return new XMLSerializer().serializeToString(doc);
}

/**
 * docx writes Word's "Bibliography" style bare; ours hangs 0.5 inch (720 twips) with 6 pt after, as the style added to
 * templates that lack one (package/styles.ts), so an APA or numeric entry's second line stands in from the first.
 */
function hangingBibliography(xml: string): string {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  for (const style of Array.from(doc.getElementsByTagNameNS(W, 'style'))) {
    if (style.getAttributeNS(W, 'styleId') !== 'Bibliography') continue;
    if (style.getElementsByTagNameNS(W, 'pPr').length > 0) continue;
    const pPr = doc.createElementNS(W, 'w:pPr');
    const spacing = doc.createElementNS(W, 'w:spacing');
    spacing.setAttributeNS(W, 'w:after', '120');
    const ind = doc.createElementNS(W, 'w:ind');
    ind.setAttributeNS(W, 'w:left', '720');
    ind.setAttributeNS(W, 'w:hanging', '720');
    pPr.appendChild(spacing);
    pPr.appendChild(ind);
    // CT_Style: w:pPr after the style's names and flags, before w:rPr.
    const rPr = Array.from(style.childNodes).find((n) => n.namespaceURI === W && n.localName === 'rPr') ?? null;
    style.insertBefore(pPr, rPr);
  }
  return new XMLSerializer().serializeToString(doc);
}

/** The template's bytes, embedded by the build (scripts/build.mjs); absent when running from the sources. */
declare const __DOCWRIGHT_DEFAULT_TEMPLATE__: string | undefined;

/**
 * Builds "Docwright Default": A4 with 2.5 cm margins, a named style for every mapping key, code at 9 pt monospace
 * and page numbers in the footer. Reproducible: the same bytes on every run. docx writes it through its public API,
 * which is asynchronous: the build embeds the bytes (scripts/build.mjs), the sources build them when this module loads.
 */
export async function buildDefaultTemplate(): Promise<Uint8Array> {
  const doc = new Document({
    creator: 'Docwright',
    title: DEFAULT_TEMPLATE_NAME,
    description: 'The built-in Docwright template.',
    styles,
    sections: [
      {
        properties: {
          page: {
            size: { width: 11906, height: 16838 },
            margin: { top: 1418, bottom: 1418, left: 1418, right: 1418, header: 709, footer: 709 },
          },
        },
        footers: {
          default: new Footer({
            children: [
              new Paragraph({
                style: 'Footer',
                children: [new TextRun({ children: ['Page ', PageNumber.CURRENT, ' of ', PageNumber.TOTAL_PAGES] })],
              }),
            ],
          }),
        },
        children: [new Paragraph({ style: 'BodyText', children: [new TextRun('{{content}}')] })],
      },
    ],
  });
  const parts = new Map<string, Uint8Array | string>(await docxParts(doc));
  const text = (path: string): string | undefined => {
    const data = parts.get(path);
    return data === undefined ? undefined : typeof data === 'string' ? data : new TextDecoder().decode(data);
  };
  const stylesXml = text('word/styles.xml');
  if (stylesXml !== undefined) {
    // docx writes a "Normal Table" of its own in some versions; a second style with the same id is one Word may repair.
    const tableNormal = stylesXml.includes('w:styleId="TableNormal"') ? '' : TABLE_NORMAL;
    parts.set(
      'word/styles.xml',
      hangingBibliography(strongAsCharacterStyle(stylesXml)).replace(
        /<\/w:styles>\s*$/,
        `${tableNormal}${TABLE_STYLE}</w:styles>`,
      ),
    );
  }
  const core = text('docProps/core.xml');
  if (core !== undefined)
    parts.set(
      'docProps/core.xml',
      core.replace(/(<dcterms:(?:created|modified)[^>]*>)[^<]*/g, '$12000-01-01T00:00:00Z'),
    );
  return zipParts(parts, 9);
}

const bytes: Uint8Array =
  typeof __DOCWRIGHT_DEFAULT_TEMPLATE__ === 'string'
    ? new Uint8Array(Buffer.from(__DOCWRIGHT_DEFAULT_TEMPLATE__, 'base64'))
    : await buildDefaultTemplate();

/** The built-in template's bytes (see buildDefaultTemplate). */
export function defaultTemplate(): Uint8Array {
  return bytes;
}
