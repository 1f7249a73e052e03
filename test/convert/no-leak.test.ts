// Acceptance of issue 33, item 8: nothing leaks silently. Every corpus document and the syntax catalogue
// (test/fixtures/syntax-catalogue.md) converts with the built-in template, and the text Word shows (the body, notes,
// headers and footers; code and escaped text aside) holds no TeX math, `{…}` attribute block, `:::` fence, `\newpage`,
// `^[`, superscript, citation or cross-reference unless a warning names it; each construct of the catalogue is
// converted or warned with its line, and its escaped and in-code versions stay literal, unwarned.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert, type ConvertResult } from '../../server/convert/index.ts';
import { part, partNames, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const fixtures = resolve(import.meta.dirname, '../fixtures');
const catalogue = join(fixtures, 'syntax-catalogue.md');
const markdownIn = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.md') && f !== 'SOURCES.md')
        .map((f) => join(dir, f))
    : [];
const documents = [
  ...markdownIn(resolve(import.meta.dirname, '../../../shared/corpus/docs')),
  ...markdownIn(join(fixtures, 'corpus-extra')),
  catalogue,
];

/** Literal syntax as Word would show it (this test's own patterns, not the engine's). */
const LEAKS: readonly { name: string; pattern: RegExp }[] = [
  { name: 'TeX math', pattern: /\$[^\s$](?:[^$]*[^\s$])?\$(?!\d)/g },
  { name: 'attribute block', pattern: /\{[#.][^{}]*\}|\{[A-Za-z][\w-]*=[^{}]*\}/g },
  { name: 'fence', pattern: /:::/g },
  { name: 'page break', pattern: /\\(?:newpage|pagebreak)/g },
  { name: 'inline note', pattern: /\^\[/g },
  { name: 'superscript', pattern: /\^[^\s^]+\^/g },
  { name: 'subscript', pattern: /(?<!~)~[^\s~]+~(?!~)/g },
  { name: 'citation', pattern: /\[(?:[^\]]*[\s;])?-?@\w[^\]]*\]/g },
  { name: 'cross-reference', pattern: /(?<![\w@])@(?:fig|tbl|eq|sec):\w/g },
];
/** Constructs that start a line: found per line of the catalogue (Word shows them run into the line before). */
const LINE_LEAKS: readonly RegExp[] = [/^\s*:\s+\S.*/, /^\s*\|\s.*/, /^Table:\s.*/];

/** Paragraphs starting so hold escaped syntax, which must stay literal. */
const LITERAL = 'Literal';
const isCode = (style: string | undefined): boolean =>
  style !== undefined && (style === 'VerbatimChar' || style === 'CodeBlock' || style.endsWith('Tok'));
const styleOf = (el: Element | null | undefined, props: string, name: string): string | undefined =>
  (el?.getElementsByTagNameNS(W, props).item(0)?.getElementsByTagNameNS(W, name).item(0) ?? null)?.getAttributeNS(
    W,
    'val',
  ) ?? undefined;
const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The text Word shows, paragraph by paragraph, of the body, notes, headers and footers; code left out. */
function shownParagraphs(docx: Uint8Array): string[] {
  const names = partNames(docx).filter((n) =>
    /^word\/(?:document|footnotes|endnotes|header\d*|footer\d*)\.xml$/.test(n),
  );
  const paragraphs: string[] = [];
  for (const name of names) {
    const doc = new DOMParser().parseFromString(part(docx, name), 'text/xml');
    for (const p of Array.from(doc.getElementsByTagNameNS(W, 'p'))) {
      const pPr = Array.from(p.childNodes).find((c) => (c as Element).localName === 'pPr') as Element | undefined;
      if (isCode(pPr ? styleOf(p, 'pPr', 'pStyle') : undefined)) continue;
      let text = '';
      for (const r of Array.from(p.getElementsByTagNameNS(W, 'r'))) {
        if (isCode(styleOf(r, 'rPr', 'rStyle'))) continue;
        for (const t of Array.from(r.getElementsByTagNameNS(W, 't'))) text += t.textContent ?? '';
      }
      paragraphs.push(collapse(text));
    }
  }
  return paragraphs;
}

/** The leaks of shown text that no warning names (a warning of the syntax as text, or of TeX left unconverted). */
function unwarned(paragraphs: readonly string[], result: ConvertResult): string[] {
  const warned = result.warnings
    .filter((w) => w.startsWith('syntax_as_text: ') || w.startsWith('math_unsupported: '))
    .map(collapse);
  // A key no bibliography or label has stays as written, named by its own warning.
  const unknown = result.warnings.flatMap((w) => /^(?:citation_missing|broken_reference): (\S+)$/.exec(w)?.[1] ?? []);
  // An image placeholder shows the image's name (its alt text) as written, and its warning names it (SPEC.md: Images).
  const placeholders = new Set(
    result.warnings.flatMap((w) => (w.startsWith('image_placeholder: ') ? `[Image: ${collapse(w.slice(19))}]` : [])),
  );
  const silent: string[] = [];
  for (const text of paragraphs) {
    if (text.startsWith(LITERAL) || placeholders.has(text)) continue;
    for (const { name, pattern } of LEAKS)
      for (const match of text.matchAll(pattern)) {
        const seen = match[0].slice(0, 20);
        const named = unknown.some((key) => text.startsWith(`@${key}`, match.index) || match[0].includes(`@${key}`));
        if (warned.some((w) => w.includes(seen)) || named) continue;
        silent.push(`${name}: ${match[0]} in "${text.slice(0, 80)}"`);
      }
  }
  return silent;
}

const bibliography = { text: readFileSync(join(fixtures, 'citations/refs.bib'), 'utf8') };
/** Captions, the abstract and the body citing and referring, known and unknown keys alike (issue 34). */
const apparatus = join(fixtures, 'elements/captions-apparatus/input.md');

const results = new Map<string, Promise<{ result: ConvertResult; paragraphs: string[] }>>();
function converted(path: string): Promise<{ result: ConvertResult; paragraphs: string[] }> {
  let known = results.get(path);
  if (!known) {
    known = convert({ markdown: readFileSync(path, 'utf8'), created: new Date('2026-01-02T03:04:05Z') }).then(
      (result) => ({ result, paragraphs: shownParagraphs(result.docx) }),
    );
    results.set(path, known);
  }
  return known;
}

describe('nothing leaks silently (issue 33, item 8)', () => {
  for (const path of documents) {
    it(`${path.slice(path.lastIndexOf('/') + 1)}: no literal syntax in the shown text unless warned`, async () => {
      const { result, paragraphs } = await converted(path);
      expect(unwarned(paragraphs, result)).toEqual([]);
      const { ok, report } = await validateDocx(result.docx);
      expect(ok, report).toBe(true);
    }, 60_000);
  }

  for (const path of [catalogue, apparatus])
    it(`${path.slice(path.lastIndexOf('/') + 1)} with a bibliography: citations and references resolve or are warned, in captions and the abstract too`, async () => {
      const result = await convert({ markdown: readFileSync(path, 'utf8'), bibliography, created: new Date(0) });
      const paragraphs = shownParagraphs(result.docx);
      expect(unwarned(paragraphs, result)).toEqual([]);
      // Each unknown key is named with a line.
      for (const detail of result.warningDetails.filter((d) => /^(citation_missing|broken_reference):/.test(d.warning)))
        expect(detail.line, detail.warning).toBeGreaterThan(0);
    }, 60_000);

  it('the catalogue: each construct left as text is warned with its line', async () => {
    const { result, paragraphs } = await converted(catalogue);
    const shown = paragraphs.filter((p) => !p.startsWith(LITERAL)).join(' ');
    const lines = readFileSync(catalogue, 'utf8').split('\n');
    // Each piece of syntax with the lines that hold it: as many of those lines as it shows times must be warned.
    const at = new Map<string, number[]>();
    let inFence = false;
    lines.forEach((line, k) => {
      if (line.startsWith('```')) inFence = !inFence;
      if (inFence || line.startsWith('    ') || line.startsWith(LITERAL) || k < 4) return;
      const found = [
        ...LEAKS.flatMap(({ pattern }) => [...line.matchAll(pattern)].map((m) => m[0])),
        ...LINE_LEAKS.flatMap((pattern) => pattern.exec(line)?.[0] ?? []),
      ];
      for (const syntax of found) at.set(collapse(syntax), [...(at.get(collapse(syntax)) ?? []), k + 1]);
    });
    const missing: string[] = [];
    for (const [syntax, where] of at) {
      const shownTimes = shown.split(syntax).length - 1;
      const warned = where.filter((line) => result.warningDetails.some((d) => d.line === line));
      if (warned.length < shownTimes) missing.push(`${syntax} (lines ${where.join(', ')}): shown ${shownTimes}×`);
    }
    expect(missing).toEqual([]);
  });

  it('the catalogue: escaped and in-code syntax stays literal and unwarned', async () => {
    const { result, paragraphs } = await converted(catalogue);
    const lines = readFileSync(catalogue, 'utf8').split('\n');
    const literal = paragraphs.find((p) => p.startsWith('Literal:'));
    for (const text of ['$E = mc^2$', '{#id .class}', '^[not a note]', '\\newpage', ':::', '[@cited]', '3^2^'])
      expect(literal).toContain(text);
    const codeLines = new Set<number>();
    let inFence = false;
    lines.forEach((line, k) => {
      if (line.startsWith('```')) inFence = !inFence;
      if (inFence || line.startsWith('```') || line.startsWith('    ') || line.startsWith(LITERAL))
        codeLines.add(k + 1);
    });
    const warnedThere = result.warningDetails.filter((d) => d.line !== null && codeLines.has(d.line));
    // The math fence's TeX converts (math_unsupported would name it); nothing else is warned in code or escaped.
    expect(warnedThere).toEqual([]);
    const code = result.docx && part(result.docx, 'word/document.xml');
    for (const text of ['{#id}', '^[x]', '[@key]', '::: {.indented-code}', '\\pagebreak']) expect(code).toContain(text);
  });
});
