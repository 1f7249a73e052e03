// Word equations (issue 33, item 1) beside pandoc's: 50 formulas of test/fixtures/math/formulas.tex converted by
// both, compared by their structure (the m:* elements in order with their text; property elements such as m:rPr,
// m:dPr or m:naryPr left out, as pandoc writes some in an order the schema does not allow); at least 90 % must be
// the same. And a Korean textbook-shaped chapter (test/fixtures/math/korean-chapter.md) whose every formula becomes
// an m:oMath, which passes the schema and prints in LibreOffice.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { parseMarkdown } from '../../server/convert/parse/index.ts';
import { part, pdfText, validateDocx } from '../helpers/docx.ts';

const M = 'http://schemas.openxmlformats.org/officeDocument/2006/math';
const dir = join(import.meta.dirname, '../fixtures/math');
const formulas = readFileSync(join(dir, 'formulas.tex'), 'utf8').trim().split('\n');
const chapter = readFileSync(join(dir, 'korean-chapter.md'), 'utf8');

const pandocVersion = spawnSync('pandoc', ['--version'], { encoding: 'utf8' });
const hasPandoc = pandocVersion.status === 0;
if (!hasPandoc) console.log('math-pandoc.test.ts: pandoc is not installed, so the comparison with it is skipped');

/** The m:oMath elements of a document body, in order. */
function equations(documentXml: string): Element[] {
  const doc = new DOMParser().parseFromString(documentXml, 'application/xml');
  return Array.from(doc.getElementsByTagNameNS(M, 'oMath'));
}

/** An equation's structure: its m:* elements in order (`/` closes one) with their text, properties left out. */
function structure(el: Element): string {
  const out: string[] = [];
  const walk = (e: Element): void => {
    const name = e.localName ?? '';
    if (e.namespaceURI !== M || name.endsWith('Pr')) return;
    if (name === 't') {
      out.push(JSON.stringify(e.textContent ?? ''));
      return;
    }
    out.push(name);
    for (let n = e.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) walk(n as Element);
    out.push('/');
  };
  walk(el);
  return out.join(' ');
}

describe('math: Word equations', () => {
  it.skipIf(!hasPandoc)('50 formulas: at least 90 % have the structure pandoc gives them', async () => {
    const markdown = formulas.map((tex) => `$${tex}$`).join('\n\n');
    const result = await convert({ markdown });
    expect(result.warnings).toEqual([]);
    const ours = equations(part(result.docx, 'word/document.xml'));
    const docx = execFileSync('pandoc', ['-f', 'markdown', '-t', 'docx'], { input: markdown });
    const theirs = equations(part(new Uint8Array(docx), 'word/document.xml'));
    expect(ours).toHaveLength(formulas.length);
    expect(theirs).toHaveLength(formulas.length);
    const differing = formulas.flatMap((tex, i) => {
      const a = structure(ours[i] as Element);
      const b = structure(theirs[i] as Element);
      return a === b ? [] : [`${tex}\n  ours:   ${a}\n  pandoc: ${b}`];
    });
    const same = formulas.length - differing.length;
    console.log(`math-pandoc.test.ts: ${same} of ${formulas.length} formulas match pandoc's structure`);
    if (differing.length > 0) console.log(differing.join('\n'));
    expect(same / formulas.length).toBeGreaterThanOrEqual(0.9);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('a Korean textbook chapter: every formula is an m:oMath, valid, and LibreOffice prints it', async () => {
    let inline = 0;
    let display = 0;
    const stack = [parseMarkdown(chapter).tree as { type: string; children?: unknown[] }];
    for (let node = stack.pop(); node; node = stack.pop()) {
      if (node.type === 'inlineMath') inline += 1;
      if (node.type === 'math') display += 1;
      for (const child of node.children ?? []) stack.push(child as { type: string; children?: unknown[] });
    }
    expect(inline).toBeGreaterThanOrEqual(30);
    expect(display).toBe(5);
    const result = await convert({ markdown: chapter });
    expect(result.warnings).toEqual([]);
    const xml = part(result.docx, 'word/document.xml');
    expect(equations(xml)).toHaveLength(inline + display);
    expect(xml.match(/<m:oMathPara>/g)).toHaveLength(display);
    // The prices of the last line stay text.
    expect(xml).toContain('$5,000원과 $10 사이의');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
    const text = await pdfText(result.docx);
    expect(text).toContain('이차함수');
    expect(text).toContain('근의 공식은');
    // No TeX printed as text: each formula went to LibreOffice as an equation, which prints it (a root, a sum, an
    // integral: LibreOffice without its Math module prints nothing for them).
    expect(text).not.toMatch(/\\frac|\\sum|\\lim|\\begin/);
    for (const sign of ['√', '∑', '∫']) expect(text).toContain(sign);
  }, 120_000);
});
