// Issue 33 item 2, syntax highlighting, in the engine: the languages' names and aliases are highlight.js's own; the
// highlighter is bounded (a block over 16 KB, code past 256 KB a document: plain, with a warning; the slowest grammars
// on hostile text at the limit in bounded time);
// the mapping key turns it off; a template without pandoc's token styles gets them, based on its own code style, and
// one with them keeps its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import hljs from 'highlight.js/lib/core';
import { describe, expect, it } from 'vitest';
import { convert, DEFAULT_RULES } from '../../server/convert/index.ts';
import { LANGUAGES, languageOf } from '../../server/convert/highlight/languages.ts';
import { MAX_BLOCK_CHARS, MAX_DOCUMENT_CHARS } from '../../server/convert/highlight/highlighter.ts';
import { scopeKind, TOKEN_KINDS } from '../../server/convert/highlight/tokens.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const CREATED = new Date('2026-01-02T03:04:05Z');
const CORPORATE = join(import.meta.dirname, '../fixtures/templates/corporate.docx');

const fence = (lang: string, code: string) => `\`\`\`${lang}\n${code}\n\`\`\`\n`;
const tokenStyles = (xml: string) => [...xml.matchAll(/<w:rStyle w:val="(\w+Tok)"\/>/g)].map((m) => m[1]);

/** The template with its styles part changed by `edit`. */
function withStyles(template: Uint8Array, edit: (styles: string) => string): Uint8Array {
  const parts = unzipSync(template);
  const styles = parts['word/styles.xml'];
  if (!styles) throw new Error('no styles part');
  parts['word/styles.xml'] = strToU8(edit(strFromU8(styles)));
  return zipSync(parts);
}

describe('languages', () => {
  it("names and aliases are highlight.js's own, and the embedded languages are highlighted too", async () => {
    for (const [name, language] of Object.entries(LANGUAGES)) {
      const grammar = (await language.load()).default(hljs);
      expect([...language.aliases].sort(), name).toEqual([...(grammar.aliases ?? [])].sort());
      for (const embedded of language.embeds ?? []) expect(Object.hasOwn(LANGUAGES, embedded), embedded).toBe(true);
    }
    expect([
      languageOf('Python'),
      languageOf('py'),
      languageOf('C++'),
      languageOf('klingon'),
      languageOf(null),
    ]).toEqual(['python', 'python', 'cpp', undefined, undefined]);
  });

  it("maps highlight.js's scopes to pandoc's kinds, sub-scopes by their first parts", () => {
    expect(scopeKind('keyword')).toBe('KeywordTok');
    expect(scopeKind('title.function.invoke')).toBe('FunctionTok');
    expect(scopeKind('title.class.inherited')).toBe('DataTypeTok');
    expect(scopeKind('no-such-scope')).toBeUndefined();
    expect(TOKEN_KINDS).toHaveLength(31);
  });
});

describe('highlighting in a conversion', () => {
  it('is on by default and off with code_highlighting: off, the text the same', async () => {
    const markdown = fence('python', 'def f(x):\n    return "x"  # note');
    const on = part((await convert({ markdown, created: CREATED })).docx, 'word/document.xml');
    const off = part(
      (await convert({ markdown, created: CREATED, mapping: { ...DEFAULT_RULES, code_highlighting: 'off' } })).docx,
      'word/document.xml',
    );
    expect(tokenStyles(on)).toEqual(expect.arrayContaining(['KeywordTok', 'FunctionTok', 'StringTok', 'CommentTok']));
    expect(tokenStyles(off)).toEqual([]);
    const text = (xml: string) => [...xml.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1]).join('');
    expect(text(on)).toBe(text(off));
  });

  it('leaves a block over the limit plain with a warning, in bounded time', async () => {
    const line = 'const value = compute("text", 42); // comment\n';
    const big = line.repeat(Math.ceil((MAX_BLOCK_CHARS + 1) / line.length));
    const start = performance.now();
    const result = await convert({ markdown: `${fence('js', big)}\n${fence('js', line)}`, created: CREATED });
    const elapsed = performance.now() - start;
    expect(result.warnings).toEqual([
      `highlight_skipped: javascript (a code block of ${String(Math.ceil(big.length / 1024))} KB; at most 16 KB is highlighted)`,
    ]);
    expect(result.warningDetails[0]?.line).toBe(1);
    const xml = part(result.docx, 'word/document.xml');
    // The small block after it is highlighted; the big one is all there, plain.
    expect(tokenStyles(xml).length).toBeGreaterThan(0);
    expect(xml.split('compute("text", 42); // comment').length - 1).toBe(big.split('\n').length - 1);
    expect(elapsed).toBeLessThan(20_000);
  });

  it("stops highlighting a document's code past 256 KB, with one warning", async () => {
    const block = fence('ini', 'key = 1\n'.repeat(Math.floor((MAX_BLOCK_CHARS - 100) / 8)));
    const blocks = Math.ceil(MAX_DOCUMENT_CHARS / MAX_BLOCK_CHARS) + 2;
    const result = await convert({ markdown: Array(blocks).fill(block).join('\n'), created: CREATED });
    expect(result.warnings).toEqual(["highlight_skipped: ini (the document's code past 256 KB is not highlighted)"]);
    expect(result.warningDetails[0]?.count).toBe(2);
  }, 120_000);

  it('highlights the slowest grammars on hostile text at the limit in bounded time', async () => {
    // C's grammars scan a run of bare identifiers again from each word: quadratic in the block (docs/elements.md).
    const soup = 'abcdefgh '.repeat(Math.floor(MAX_BLOCK_CHARS / 9) - 1);
    const markdown = ['cpp', 'c', 'csharp', 'typescript'].map((lang) => fence(lang, soup)).join('\n');
    const start = performance.now();
    const result = await convert({ markdown, created: CREATED });
    expect(result.warnings).toEqual([]);
    expect(performance.now() - start).toBeLessThan(60_000);
  }, 120_000);

  it("counts HTML's characters four times: 16 KB of <script> stays plain, 4 KB is highlighted in well under the limit", async () => {
    // XML's grammar highlights a <script>'s content as JavaScript and the rest again as XML: 16 KB of `<script>` took
    // 13–15 s (the review of 2026-11-27).
    const soup = (chars: number) => '<script>'.repeat(Math.floor(chars / 8));
    const large = await convert({ markdown: fence('html', soup(MAX_BLOCK_CHARS - 8)), created: CREATED });
    expect(large.warnings).toEqual([`highlight_skipped: xml (a code block of 16 KB; at most 4 KB is highlighted)`]);
    const start = performance.now();
    const small = await convert({ markdown: fence('html', soup(MAX_BLOCK_CHARS / 4 - 8)), created: CREATED });
    expect(small.warnings).toEqual([]);
    expect(performance.now() - start).toBeLessThan(10_000);
  }, 60_000);

  it("keeps code that reads as docx's page-number names as text, never a field (highlighted, plain, after a tab)", async () => {
    // docx writes a run's child string CURRENT, TOTAL_PAGES, TOTAL_PAGES_IN_SECTION or SECTION as a PAGE, NUMPAGES,
    // SECTIONPAGES or SECTION field: a code line (or token) of one of those words showed a number instead.
    const words = ['CURRENT', 'TOTAL_PAGES', 'TOTAL_PAGES_IN_SECTION', 'SECTION'];
    const code = words.join('\n');
    const tabbed = words.map((w) => `\t${w}`).join('\n');
    const markdown = [fence('sql', code), fence('', code), fence('go', tabbed), fence('text', tabbed)].join('\n');
    for (const mapping of [DEFAULT_RULES, { ...DEFAULT_RULES, code_highlighting: 'off' as const }]) {
      const result = await convert({ markdown, created: CREATED, mapping });
      const xml = part(result.docx, 'word/document.xml');
      expect(xml).not.toContain('w:fldChar');
      expect(xml).not.toContain('w:instrText');
      const text = [...xml.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>|<w:tab\/>/g)].map((m) => m[1] ?? '\t').join('');
      const tabs = words.map((w) => `\t${w}`).join('');
      expect(text).toBe(`${words.join('')}${words.join('')}${tabs}${tabs}`);
      const { ok, report } = await validateDocx(result.docx);
      expect(ok, report).toBe(true);
    }
  });

  it('keeps hostile code whole in each language (quotes, comments, brackets never closed)', async () => {
    const hostile = ['"'.repeat(2000), '/*'.repeat(1000), '\\'.repeat(2000), '(['.repeat(1000), '<a '.repeat(700)];
    const languages = Object.keys(LANGUAGES);
    const markdown = languages.flatMap((lang, i) => [fence(lang, hostile[i % hostile.length] ?? '')]).join('\n');
    const result = await convert({ markdown, created: CREATED });
    expect(result.warnings).toEqual([]);
    expect(result.stats.code_blocks).toBe(languages.length);
    const xml = part(result.docx, 'word/document.xml');
    expect(tokenStyles(xml).length).toBeGreaterThan(0);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  }, 120_000);
});

describe('token styles in the template', () => {
  it('are added where the template lacks them, based on its own code character style', async () => {
    const corporate = new Uint8Array(readFileSync(CORPORATE));
    expect(strFromU8(unzipSync(corporate)['word/styles.xml'] ?? new Uint8Array())).not.toContain('KeywordTok');
    const result = await convert({ markdown: fence('sql', 'SELECT 1; -- one'), template: corporate, created: CREATED });
    const styles = part(result.docx, 'word/styles.xml');
    for (const kind of TOKEN_KINDS) expect(styles, kind).toContain(`w:styleId="${kind}"`);
    // pandoc's colours, in code's font and size (9 pt), so the runs need no direct formatting.
    expect(styles).toMatch(
      /w:styleId="KeywordTok"><w:name w:val="KeywordTok"\/>(<w:basedOn w:val="[^"]+"\/>)?<w:uiPriority w:val="99"\/><w:rPr><w:rFonts w:ascii="Consolas"[^>]*\/><w:b\/><w:bCs\/><w:color w:val="007020"\/><w:sz w:val="18"\/><w:szCs w:val="18"\/><\/w:rPr>/,
    );
    expect(part(result.docx, 'word/document.xml')).toMatch(/<w:rPr><w:rStyle w:val="KeywordTok"\/><\/w:rPr>/);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
    // Without highlighted code, the template's styles stay as they are.
    const plain = await convert({ markdown: 'text', template: corporate, created: CREATED });
    expect(part(plain.docx, 'word/styles.xml')).not.toContain('KeywordTok');
  });

  it('are based on the template’s "Verbatim Char" when it has one', async () => {
    const corporate = new Uint8Array(readFileSync(CORPORATE));
    const template = withStyles(corporate, (xml) =>
      xml.replace(
        '</w:styles>',
        '<w:style w:type="character" w:customStyle="1" w:styleId="MyVerbatim"><w:name w:val="Verbatim Char"/><w:rPr><w:shd w:val="clear" w:color="auto" w:fill="EEEEEE"/></w:rPr></w:style></w:styles>',
      ),
    );
    const result = await convert({ markdown: fence('sql', 'SELECT 1;'), template, created: CREATED });
    expect(part(result.docx, 'word/styles.xml')).toContain(
      '<w:style w:type="character" w:customStyle="1" w:styleId="KeywordTok"><w:name w:val="KeywordTok"/><w:basedOn w:val="MyVerbatim"/>',
    );
  });

  it("a template's own token style (pandoc's name, or spaced) is used and kept, under its own id", async () => {
    const corporate = new Uint8Array(readFileSync(CORPORATE));
    const template = withStyles(corporate, (xml) =>
      xml.replace(
        '</w:styles>',
        '<w:style w:type="character" w:customStyle="1" w:styleId="KwStyle"><w:name w:val="Keyword Tok"/><w:rPr><w:color w:val="FF00FF"/></w:rPr></w:style></w:styles>',
      ),
    );
    const result = await convert({ markdown: fence('sql', 'SELECT 1;'), template, created: CREATED });
    expect(tokenStyles(part(result.docx, 'word/document.xml'))).toContain('DecValTok');
    // The template's own style does not give code's font and size: its runs carry them; ours need not.
    expect(part(result.docx, 'word/document.xml')).toMatch(/<w:rStyle w:val="KwStyle"\/><w:rFonts w:ascii="Consolas"/);
    expect(part(result.docx, 'word/document.xml')).toMatch(/<w:rPr><w:rStyle w:val="DecValTok"\/><\/w:rPr>/);
    const styles = part(result.docx, 'word/styles.xml');
    expect(styles).toContain('<w:color w:val="FF00FF"/>');
    expect(styles).not.toContain('w:styleId="KeywordTok"');
    expect(styles).toContain('w:styleId="DecValTok"');
  });
});
