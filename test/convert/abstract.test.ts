// Front matter abstract and keywords (issue 34, item 6), beyond the element fixtures (test/fixtures/elements/
// abstract-*): the style found by name, the description property's precedence, a long abstract cut with a warning.
import { describe, expect, it } from 'vitest';
import { suggestRules } from '../../server/convert/auto-mapping.ts';
import { convert, defaultTemplate } from '../../server/convert/index.ts';
import { readTemplate } from '../../server/convert/template/read.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { withParts } from '../helpers/hostile-template.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-02T03:04:05Z');
const style = (id: string, name: string) =>
  `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/><w:basedOn w:val="Normal"/></w:style>`;
const stylesOf = (styles: string) =>
  readTemplate(
    withParts(defaultTemplate(), {
      'word/styles.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>${styles}</w:styles>`,
    }),
  ).styles;

describe('abstract and keywords', () => {
  it('matching by style name finds pandoc\'s "Abstract", else a name holding a role word', () => {
    expect(suggestRules(stylesOf(style('Abstract', 'Abstract') + style('BodyText', 'Body Text'))).abstract).toBe(
      'Abstract',
    );
    expect(suggestRules(stylesOf(style('ThesisSummary', 'Thesis Summary'))).abstract).toBe('Thesis Summary');
    expect(suggestRules(stylesOf(style('BodyText', 'Body Text'))).abstract).toBeUndefined();
  });

  it('a front matter description wins over the abstract for dc:description; the abstract is still printed', async () => {
    const markdown = '---\ndescription: The catalogue entry.\nabstract: The *printed* abstract.\n---\nBody.\n';
    const result = await convert({ markdown, created });
    expect(result.warnings).toEqual([]);
    expect(part(result.docx, 'docProps/core.xml')).toContain('<dc:description>The catalogue entry.</dc:description>');
    expect(part(result.docx, 'word/document.xml')).toContain('printed');
  });

  it('an abstract longer than 20,000 characters is cut there, with a warning', async () => {
    const long = 'word '.repeat(4100).trim();
    const result = await convert({ markdown: `---\nabstract: ${long}\n---\nBody.\n`, created });
    expect(result.warnings).toEqual(['front_matter_truncated: abstract (its first 20000 characters are printed)']);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('keywords that YAML reads as numbers are printed as written; an empty list prints nothing', async () => {
    const listed = await convert({ markdown: '---\nkeywords: [1984, engines]\n---\nBody.\n', created });
    expect(part(listed.docx, 'word/document.xml')).toContain('1984, engines');
    const empty = await convert({ markdown: '---\nkeywords: []\n---\nBody.\n', created });
    expect(part(empty.docx, 'word/document.xml')).not.toContain('Keywords');
  });

  it("an abstract opening with its own --- block cannot change the document's title: the block is kept as code", async () => {
    const markdown = '---\ntitle: The Real Title\nabstract: "---\\ntitle: Hijack\\n---\\nThe abstract."\n---\nBody.\n';
    const result = await convert({ markdown, created });
    expect(part(result.docx, 'docProps/core.xml')).toContain('<dc:title>The Real Title</dc:title>');
    const body = part(result.docx, 'word/document.xml');
    expect(body).toContain('title: Hijack');
    expect(body).toContain('The abstract.');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
