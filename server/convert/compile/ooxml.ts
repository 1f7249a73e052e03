/**
 * The WordprocessingML the compiler writes, as strings: paragraphs, runs, hyperlinks, footnote references, tables
 * and list definitions. The markup is the one the `docx` library wrote for the same options (element and attribute
 * order, escaping), which the element fixtures pin, without building and serialising its object model.
 */

/** A piece of body or paragraph XML. */
export type Xml = string;

const ESCAPES: Record<string, string> = { '&': '&amp;', '"': '&quot;', "'": '&apos;', '<': '&lt;', '>': '&gt;' };

/** Escapes text and attribute values; C0 controls other than tab, LF and CR are dropped (as docx did). */
export function esc(value: string): string {
  return value.replace(/[&"'<>\x00-\x08\x0B\x0C\x0E-\x1F]/g, (c) => ESCAPES[c] ?? '');
}

export type Alignment = 'left' | 'right' | 'center';

/** Run properties, in the subset Docwright uses. */
export interface RunProps {
  style?: string;
  font?: string;
  bold?: boolean;
  italics?: boolean;
  strike?: boolean;
  color?: string;
  /** Half-points. */
  size?: number;
  underline?: boolean;
}

export function runProperties(p: RunProps): Xml {
  let x = '';
  if (p.style) x += `<w:rStyle w:val="${esc(p.style)}"/>`;
  if (p.font) {
    const f = esc(p.font);
    x += `<w:rFonts w:ascii="${f}" w:cs="${f}" w:eastAsia="${f}" w:hAnsi="${f}"/>`;
  }
  if (p.bold !== undefined) x += p.bold ? '<w:b/><w:bCs/>' : '<w:b w:val="false"/><w:bCs w:val="false"/>';
  if (p.italics !== undefined) x += p.italics ? '<w:i/><w:iCs/>' : '<w:i w:val="false"/><w:iCs w:val="false"/>';
  if (p.strike !== undefined) x += p.strike ? '<w:strike/>' : '<w:strike w:val="false"/>';
  if (p.color) x += `<w:color w:val="${esc(p.color)}"/>`;
  if (p.size !== undefined) x += `<w:sz w:val="${p.size}"/>`;
  if (p.size) x += `<w:szCs w:val="${p.size}"/>`;
  if (p.underline) x += '<w:u w:val="single"/>';
  return x ? `<w:rPr>${x}</w:rPr>` : '';
}

/** A run of text (`text` must already be free of characters XML forbids). */
export function textRun(text: string, props: RunProps = {}): Xml {
  return `<w:r>${runProperties(props)}<w:t xml:space="preserve">${esc(text)}</w:t></w:r>`;
}

/** A run of text pieces and tabs (code lines). */
export function tabbedRun(pieces: readonly (string | '\t')[], props: RunProps): Xml {
  let content = '';
  for (const piece of pieces) content += piece === '\t' ? '<w:tab/>' : `<w:t xml:space="preserve">${esc(piece)}</w:t>`;
  return `<w:r>${runProperties(props)}${content}</w:r>`;
}

export const LINE_BREAK: Xml = '<w:r><w:br/></w:r>';
export const PAGE_BREAK_PARAGRAPH: Xml = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';

/** The reference mark of footnote `id` in the text (its style id is pointed at the template's when packaging). */
export function footnoteReferenceRun(id: number): Xml {
  return `<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="${id}"/></w:r>`;
}

/** The mark at the start of a footnote's text. */
export const FOOTNOTE_REF_RUN: Xml = '<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteRef/></w:r>';

/**
 * Marks an external hyperlink's relationship id in the XML: the packaging step gives each its final id (past the
 * template's own) and writes its relationship. The marker cannot occur in text: control characters are dropped.
 */
export function linkIdMarker(index: number): string {
  return `\u0001${index}\u0001`;
}
export const LINK_ID_MARKER = /\u0001(\d+)\u0001/g;

/** Word keeps a link's fragment (up to 255 characters) in `w:anchor`, apart from the relationship's target. */
export function splitFragment(link: string): { target: string; anchor?: string } {
  const index = link.indexOf('#');
  const length = link.length - index - 1;
  return index > 0 && length > 0 && length <= 255 ? { target: link.slice(0, index), anchor: link.slice(index + 1) } : { target: link };
}

/** An external hyperlink: `index` is its relationship's place among the part's links. */
export function hyperlink(index: number, runs: readonly Xml[], anchor?: string): Xml {
  const fragment = anchor ? ` w:anchor="${esc(anchor)}"` : '';
  return `<w:hyperlink w:history="1"${fragment} r:id="${linkIdMarker(index)}">${runs.join('')}</w:hyperlink>`;
}

/** Marks a list instance's numbering id; the packaging step numbers the instances in document order. */
export function numIdMarker(instance: number): string {
  return `\u0002${instance}\u0002`;
}
export const NUM_ID_MARKER = /\u0002(\d+)\u0002/g;

/** Paragraph properties, in the subset Docwright uses. */
export interface ParagraphProps {
  style?: string;
  keepNext?: boolean;
  keepLines?: boolean;
  /** A list item's numbering: its list instance and level. Without a style, the paragraph gets ListParagraph. */
  numbering?: { instance: number; level: number };
  border?: { left: { style: string; size: number; color: string; space: number } };
  shading?: { type: string; color: string; fill: string };
  spacing?: { before?: number; after?: number };
  indent?: { left?: number; hanging?: number };
  alignment?: Alignment;
  outlineLevel?: number;
  run?: RunProps;
}

export function paragraphProperties(p: ParagraphProps): Xml {
  let x = '';
  if (p.numbering && !p.style) x += '<w:pStyle w:val="ListParagraph"/>';
  if (p.style) x += `<w:pStyle w:val="${esc(p.style)}"/>`;
  if (p.keepNext !== undefined) x += p.keepNext ? '<w:keepNext/>' : '<w:keepNext w:val="false"/>';
  if (p.keepLines !== undefined) x += p.keepLines ? '<w:keepLines/>' : '<w:keepLines w:val="false"/>';
  if (p.numbering) x += `<w:numPr><w:ilvl w:val="${p.numbering.level}"/><w:numId w:val="${numIdMarker(p.numbering.instance)}"/></w:numPr>`;
  if (p.border) {
    const l = p.border.left;
    x += `<w:pBdr><w:left w:val="${esc(l.style)}" w:color="${esc(l.color)}" w:sz="${l.size}" w:space="${l.space}"/></w:pBdr>`;
  }
  if (p.shading) x += `<w:shd w:fill="${esc(p.shading.fill)}" w:color="${esc(p.shading.color)}" w:val="${esc(p.shading.type)}"/>`;
  if (p.spacing) {
    const { after, before } = p.spacing;
    x += `<w:spacing${after !== undefined ? ` w:after="${after}"` : ''}${before !== undefined ? ` w:before="${before}"` : ''}/>`;
  }
  if (p.indent) {
    const { left, hanging } = p.indent;
    x += `<w:ind${left !== undefined ? ` w:left="${left}"` : ''}${hanging !== undefined ? ` w:hanging="${hanging}"` : ''}/>`;
  }
  if (p.alignment) x += `<w:jc w:val="${p.alignment}"/>`;
  if (p.outlineLevel !== undefined) x += `<w:outlineLvl w:val="${p.outlineLevel}"/>`;
  if (p.run) x += runProperties(p.run);
  return x ? `<w:pPr>${x}</w:pPr>` : '';
}

export function paragraph(props: ParagraphProps, children: readonly Xml[]): Xml {
  const content = paragraphProperties(props) + children.join('');
  return content ? `<w:p>${content}</w:p>` : '<w:p/>';
}

/** Whether a block is a paragraph (footnotes hold paragraphs only). */
export function isParagraph(block: Xml): boolean {
  return block.startsWith('<w:p>') || block === '<w:p/>';
}

/** A footnote's paragraph with the footnote mark at the start of its text. */
export function withFootnoteMark(paragraphXml: Xml): Xml {
  if (paragraphXml === '<w:p/>') return `<w:p>${FOOTNOTE_REF_RUN}</w:p>`;
  const at = paragraphXml.startsWith('<w:p><w:pPr>') ? paragraphXml.indexOf('</w:pPr>') + '</w:pPr>'.length : '<w:p>'.length;
  return paragraphXml.slice(0, at) + FOOTNOTE_REF_RUN + paragraphXml.slice(at);
}

const TABLE_BORDERS =
  '<w:tblBorders>' +
  ['top', 'left', 'bottom', 'right', 'insideH', 'insideV'].map((side) => `<w:${side} w:val="single" w:color="auto" w:sz="4"/>`).join('') +
  '</w:tblBorders>';

export interface TableProps {
  style?: string;
  /** Twips. */
  width: number;
  indent?: number;
  columnWidths: readonly number[];
}

/** A row of cells (each cell's paragraphs, at the given width). */
export interface TableRowXml {
  header: boolean;
  cells: readonly { width: number; content: Xml }[];
}

export function table(props: TableProps, rows: readonly TableRowXml[]): Xml {
  let x = '<w:tbl><w:tblPr>';
  if (props.style) x += `<w:tblStyle w:val="${esc(props.style)}"/>`;
  x += `<w:tblW w:type="dxa" w:w="${props.width}"/>`;
  if (props.indent !== undefined) x += `<w:tblInd w:type="dxa" w:w="${props.indent}"/>`;
  if (!props.style) x += TABLE_BORDERS;
  x += '</w:tblPr><w:tblGrid>';
  for (const w of props.columnWidths) x += `<w:gridCol w:w="${w}"/>`;
  x += '</w:tblGrid>';
  for (const row of rows) {
    x += `<w:tr><w:trPr><w:cantSplit/>${row.header ? '<w:tblHeader/>' : '<w:tblHeader w:val="off"/>'}</w:trPr>`;
    for (const cell of row.cells) x += `<w:tc><w:tcPr><w:tcW w:type="dxa" w:w="${cell.width}"/></w:tcPr>${cell.content}</w:tc>`;
    x += '</w:tr>';
  }
  return `${x}</w:tbl>`;
}

/** A list definition: nine levels (Word's maximum), markdown using the first three. */
export interface ListLevel {
  format: string;
  text: string;
  start: number;
  /** Twips. */
  left: number;
  hanging: number;
}

export function abstractNum(id: number, levels: readonly ListLevel[]): Xml {
  let x = `<w:abstractNum w:abstractNumId="${id}" w15:restartNumberingAfterBreak="0"><w:multiLevelType w:val="hybridMultilevel"/>`;
  levels.forEach((level, i) => {
    x +=
      `<w:lvl w:ilvl="${i}" w:tentative="1"><w:start w:val="${level.start}"/><w:numFmt w:val="${level.format}"/>` +
      `<w:lvlText w:val="${esc(level.text)}"/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="${level.left}" w:hanging="${level.hanging}"/></w:pPr></w:lvl>`;
  });
  return `${x}</w:abstractNum>`;
}

export function num(id: number, abstractId: number, levels: readonly ListLevel[]): Xml {
  let x = `<w:num w:numId="${id}"><w:abstractNumId w:val="${abstractId}"/>`;
  levels.forEach((level, i) => {
    x += `<w:lvlOverride w:ilvl="${i}"><w:startOverride w:val="${level.start}"/></w:lvlOverride>`;
  });
  return `${x}</w:num>`;
}

const NAMESPACES =
  'xmlns:wpc="http://schemas.microsoft.com/office/word/2010/wordprocessingCanvas" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ' +
  'xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math" xmlns:v="urn:schemas-microsoft-com:vml" ' +
  'xmlns:wp14="http://schemas.microsoft.com/office/word/2010/wordprocessingDrawing" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ' +
  'xmlns:w10="urn:schemas-microsoft-com:office:word" xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
  'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml" ' +
  'xmlns:wpg="http://schemas.microsoft.com/office/word/2010/wordprocessingGroup" xmlns:wpi="http://schemas.microsoft.com/office/word/2010/wordprocessingInk" ' +
  'xmlns:wne="http://schemas.microsoft.com/office/word/2006/wordml" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"';

const DOCUMENT_NAMESPACES =
  `${NAMESPACES} xmlns:cx="http://schemas.microsoft.com/office/drawing/2014/chartex" xmlns:cx1="http://schemas.microsoft.com/office/drawing/2015/9/8/chartex" ` +
  'xmlns:cx2="http://schemas.microsoft.com/office/drawing/2015/10/21/chartex" xmlns:cx3="http://schemas.microsoft.com/office/drawing/2016/5/9/chartex" ' +
  'xmlns:cx4="http://schemas.microsoft.com/office/drawing/2016/5/10/chartex" xmlns:cx5="http://schemas.microsoft.com/office/drawing/2016/5/11/chartex" ' +
  'xmlns:cx6="http://schemas.microsoft.com/office/drawing/2016/5/12/chartex" xmlns:cx7="http://schemas.microsoft.com/office/drawing/2016/5/13/chartex" ' +
  'xmlns:cx8="http://schemas.microsoft.com/office/drawing/2016/5/14/chartex" xmlns:aink="http://schemas.microsoft.com/office/drawing/2016/ink" ' +
  'xmlns:am3d="http://schemas.microsoft.com/office/drawing/2017/model3d" xmlns:w16cex="http://schemas.microsoft.com/office/word/2018/wordml/cex" ' +
  'xmlns:w16cid="http://schemas.microsoft.com/office/word/2016/wordml/cid" xmlns:w16="http://schemas.microsoft.com/office/word/2018/wordml" ' +
  'xmlns:w16sdtdh="http://schemas.microsoft.com/office/word/2020/wordml/sdtdatahash" xmlns:w16se="http://schemas.microsoft.com/office/word/2015/wordml/symex"';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** The root start tags of the parts the compiler writes, with every namespace its markup may use. */
export const ROOTS = {
  document: `<w:document mc:Ignorable="w14 w15 wp14" ${DOCUMENT_NAMESPACES}>`,
  numbering: `<w:numbering mc:Ignorable="w14 w15 wp14" ${NAMESPACES}>`,
  footnotes: `<w:footnotes ${NAMESPACES} mc:Ignorable="w14 w15 wp14">`,
};

const SEPARATOR_SPACING = '<w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>';

/** A whole footnotes part: the separators Word expects, then the notes. */
export function footnotesPart(notes: Xml): Xml {
  return (
    `${DECLARATION}${ROOTS.footnotes}` +
    `<w:footnote w:type="separator" w:id="-1"><w:p>${SEPARATOR_SPACING}${FOOTNOTE_REF_RUN}<w:r><w:separator/></w:r></w:p></w:footnote>` +
    `<w:footnote w:type="continuationSeparator" w:id="0"><w:p>${SEPARATOR_SPACING}${FOOTNOTE_REF_RUN}<w:r><w:continuationSeparator/></w:r></w:p></w:footnote>` +
    `${notes}</w:footnotes>`
  );
}

/** A whole numbering part. */
export function numberingPart(definitions: Xml): Xml {
  return `${DECLARATION}${ROOTS.numbering}${definitions}</w:numbering>`;
}
