// Lists inside footnotes: every list reference of the body and of the footnotes names a list the numbering defines,
// with the built-in template and with a Word template that has numbering of its own.
import { describe, expect, test } from 'vitest';
import { convert, readTemplate } from '../../server/convert/index.ts';
import { CORPORATE_RULES } from '../helpers/corporate.ts';
import { fixture, part, validateDocx } from '../helpers/docx.ts';

const MARKDOWN =
  '1. first\n2. second\n\nText[^n] and more[^m].\n\n[^n]: A note\n\n    - inner a\n    - inner b\n\n[^m]: Another\n\n    1. one\n    2. two\n';

const ids = (xml: string, re: RegExp) => new Set([...xml.matchAll(re)].map((m) => m[1]));

describe('lists inside footnotes', () => {
  for (const [name, options] of [
    ['the built-in template', {}],
    [
      'a Word template with numbering of its own',
      { template: readTemplate(fixture('templates', 'corporate.docx')), mapping: CORPORATE_RULES },
    ],
  ] as const) {
    test(`are defined in the numbering part (${name})`, async () => {
      const { docx } = await convert({ markdown: MARKDOWN, ...options });
      const numbering = part(docx, 'word/numbering.xml');
      const defined = ids(numbering, /<w:num\b[^>]*w:numId="(\d+)"/g);
      const body = ids(part(docx, 'word/document.xml'), /<w:numId w:val="(\d+)"\/>/g);
      const notes = ids(part(docx, 'word/footnotes.xml'), /<w:numId w:val="(\d+)"\/>/g);
      expect(notes.size).toBe(2);
      for (const id of [...body, ...notes]) expect(defined.has(id), `numId ${String(id)}`).toBe(true);
      // Each footnote's list is its own instance, apart from the body's.
      for (const id of notes) expect(body.has(id)).toBe(false);
      expect((await validateDocx(docx)).ok).toBe(true);
    });
  }
});
