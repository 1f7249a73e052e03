// Front matter `lang:` sets the document's language (issue 33, item 3): the styles' document defaults (w:lang of
// w:docDefaults, and of the default paragraph style when it names one) and dc:language; a tag that is not BCP 47 is
// warned with its line and the template's language kept.
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const created = new Date('2026-01-02T03:04:05Z');

/** w:val of the styles part's document defaults' w:lang, and of the default paragraph style's (null: none). */
function stylesLanguage(docx: Uint8Array): { defaults: string | null; normal: string | null } {
  const doc = new DOMParser().parseFromString(part(docx, 'word/styles.xml'), 'text/xml');
  const defaults = doc.getElementsByTagNameNS(W, 'docDefaults').item(0);
  const lang = defaults?.getElementsByTagNameNS(W, 'lang').item(0);
  const styles = Array.from(doc.getElementsByTagNameNS(W, 'style'));
  const normal = styles.find(
    (s) => s.getAttributeNS(W, 'type') === 'paragraph' && s.getAttributeNS(W, 'default') === '1',
  );
  const normalLang = normal?.getElementsByTagNameNS(W, 'lang').item(0);
  return { defaults: lang?.getAttributeNS(W, 'val') ?? null, normal: normalLang?.getAttributeNS(W, 'val') ?? null };
}

describe('front matter lang', () => {
  it('sets the language of the styles document defaults and dc:language', async () => {
    const result = await convert({ markdown: '---\ntitle: Bericht\nlang: de-DE\n---\n\nEin Absatz.\n', created });
    expect(stylesLanguage(result.docx).defaults).toBe('de-DE');
    expect(part(result.docx, 'docProps/core.xml')).toContain('<dc:language>de-DE</dc:language>');
    expect(result.warnings).toEqual([]);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });

  it('leaves the template language when the front matter names none', async () => {
    const plain = await convert({ markdown: 'A paragraph.\n', created });
    const german = await convert({ markdown: '---\nlang: de-DE\n---\n\nA paragraph.\n', created });
    expect(stylesLanguage(plain.docx).defaults).not.toBe('de-DE');
    // The built-in template's styles part is not rewritten for a document that names no language.
    expect(part(plain.docx, 'word/styles.xml')).not.toBe(part(german.docx, 'word/styles.xml'));
  });

  it('warns a tag that is not BCP 47 with its line, and keeps the template language', async () => {
    const result = await convert({ markdown: '---\ntitle: T\n\nlang: de_DE\n---\n\nText.\n', created });
    expect(stylesLanguage(result.docx).defaults).not.toBe('de_DE');
    expect(part(result.docx, 'docProps/core.xml')).not.toContain('dc:language');
    expect(result.warningDetails).toContainEqual({
      warning: 'invalid_language: de_DE (not a BCP 47 tag; the template language is kept)',
      line: 4,
      count: 1,
    });
    expect(result.warnings.some((w) => w.startsWith('front_matter_ignored'))).toBe(false);
  });
});
