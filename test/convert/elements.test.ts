// Fixture tests per element: test/fixtures/elements/<case>/input.md (and optional mapping.json, and options.json:
// further options of convert(), e.g. the dialect) in, the document
// body XML (pretty-printed), warnings and stats out. `UPDATE=1 npx vitest run test/convert/elements.test.ts`
// rewrites the expected files for review.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, prettyXml, validateDocx } from '../helpers/docx.ts';
import { fixtureOptions } from '../helpers/fixture-options.ts';

const root = resolve(import.meta.dirname, '../fixtures/elements');
const update = process.env.UPDATE === '1';
const created = new Date('2026-01-02T03:04:05Z');

function body(documentXml: string): string {
  const inner = documentXml.slice(documentXml.indexOf('<w:body>') + 8, documentXml.lastIndexOf('<w:sectPr'));
  return prettyXml(inner);
}

/** Compares with the expected file, or writes it under UPDATE=1. */
function expectFile(dir: string, name: string, actual: string): void {
  const path = join(dir, name);
  if (update || !existsSync(path)) {
    if (!update) throw new Error(`missing expected file ${path}; run with UPDATE=1 and review it`);
    writeFileSync(path, actual);
    return;
  }
  expect(actual, `${name} differs from the fixture (UPDATE=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

describe('elements (fixtures)', () => {
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    it(name, async () => {
      const markdown = readFileSync(join(dir, 'input.md'), 'utf8');
      const mappingPath = join(dir, 'mapping.json');
      const mapping = existsSync(mappingPath) ? JSON.parse(readFileSync(mappingPath, 'utf8')) : undefined;
      const result = await convert({ markdown, mapping, created, ...fixtureOptions(join(dir, 'input.md')) });
      const documentXml = part(result.docx, 'word/document.xml');
      expectFile(dir, 'document.xml', body(documentXml));
      expectFile(
        dir,
        'result.json',
        `${JSON.stringify({ warnings: result.warnings, stats: result.stats }, null, 2)}\n`,
      );
      if (/<w:footnoteReference /.test(documentXml))
        expectFile(dir, 'footnotes.xml', prettyXml(part(result.docx, 'word/footnotes.xml')));
      if (markdown.startsWith('---\n')) expectFile(dir, 'core.xml', prettyXml(part(result.docx, 'docProps/core.xml')));
      if (/<w:commentReference /.test(documentXml))
        expectFile(dir, 'comments.xml', prettyXml(part(result.docx, 'word/comments.xml')));
      if (/<w:numId /.test(documentXml))
        expectFile(dir, 'numbering.xml', prettyXml(part(result.docx, 'word/numbering.xml')));
      const { ok, report } = await validateDocx(result.docx);
      expect(ok, report).toBe(true);
    });
  }
});
