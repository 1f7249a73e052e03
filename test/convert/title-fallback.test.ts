// Front matter is never dropped silently (issue 32 item 6): a title, subtitle, author or date with no style to go to
// (the mapping names none, or one the template lacks) is printed in built-in formatting with a `missing_style`
// warning saying so. The APA template with the corpus's own mapping (which names no title style) is the case seen.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const CORPUS = resolve(import.meta.dirname, '../../../shared/corpus/templates');
const MARKDOWN =
  '---\ntitle: The Vanishing Title\nsubtitle: A Subtitle\nauthor: Ada Lovelace\ndate: 2024-05-01\n---\n\nBody.\n';

describe('a title block key with no style to go to', () => {
  it('APA with its corpus mapping (no title style named): the title block is printed, with a warning per key', async () => {
    const result = await convert({
      markdown: MARKDOWN,
      template: new Uint8Array(readFileSync(resolve(CORPUS, 'apaquarto.docx'))),
      mapping: JSON.parse(readFileSync(resolve(CORPUS, 'apaquarto.mapping.json'), 'utf8')) as never,
      created: new Date('2026-01-01T00:00:00Z'),
    });
    const xml = part(result.docx, 'word/document.xml');
    for (const text of ['The Vanishing Title', 'A Subtitle', 'Ada Lovelace', 'May 1, 2024'])
      expect(xml).toContain(text);
    // In the order of the front matter's block, before the body.
    expect(xml.indexOf('The Vanishing Title')).toBeLessThan(xml.indexOf('Body.'));
    expect(result.warnings).toEqual([
      'missing_style: Title (the mapping names no style for the front matter title: printed in built-in formatting)',
      'missing_style: Subtitle (the mapping names no style for the front matter subtitle: printed in built-in formatting)',
      'missing_style: Author (the mapping names no style for the front matter author: printed in built-in formatting)',
      'missing_style: Date (the mapping names no style for the front matter date: printed in built-in formatting)',
    ]);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('a mapped title style the template lacks: printed in built-in formatting, as before', async () => {
    const result = await convert({
      markdown: '---\ntitle: Still Here\n---\n\nBody.\n',
      mapping: { title: 'No Such Style' },
    });
    expect(part(result.docx, 'word/document.xml')).toContain('Still Here');
    expect(result.warnings).toEqual(['missing_style: No Such Style']);
  });
});
