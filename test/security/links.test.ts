// Issue 12, links: only http:, https:, mailto: and internal #anchor targets become hyperlinks; javascript:,
// vbscript:, data:, file:, unknown schemes and relative paths stay text with the warning `unsafe_link: <scheme>`.
// Checked on the package itself: every external relationship of the output, in the body and in footnotes.
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { unsafeLinkScheme } from '../../server/convert/compile/link-scheme.ts';
import { part } from '../helpers/docx.ts';

/** The targets of every external relationship of a part's relationships (empty when the part has none). */
function externalTargets(docx: Uint8Array, relsPath: string): string[] {
  let xml: string;
  try {
    xml = part(docx, relsPath);
  } catch {
    return [];
  }
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  return Array.from(doc.getElementsByTagName('Relationship'))
    .filter((r) => r.getAttribute('TargetMode') === 'External')
    .map((r) => r.getAttribute('Target') ?? '');
}

const UNSAFE: Record<string, string> = {
  'javascript:alert(1)': 'javascript',
  'JaVaScRiPt:alert(1)': 'javascript',
  '&#106;avascript:alert(1)': 'javascript',
  'vbscript:msgbox(1)': 'vbscript',
  'data:text/html;base64,PHNjcmlwdD4=': 'data',
  'file:///C:/Windows/System32/calc.exe': 'file',
  'file://attacker/share/payload.exe': 'file',
  'ms-msdt:/id PCWDiagnostic': 'ms-msdt',
  'search-ms:query=x': 'search-ms',
  'docs/x.md': 'relative',
  '../../secret.docx': 'relative',
  '//attacker.example/x': 'relative',
};

describe('unsafe link targets stay text with a warning; safe ones are the only external relationships', () => {
  for (const [target, scheme] of Object.entries(UNSAFE)) {
    it(`[t](${target}) → text, "unsafe_link: ${scheme}", no relationship (body and footnote)`, async () => {
      const markdown = `Before [the text](<${target}>) after.[^1]\n\n[^1]: A note [noted](<${target}>).\n`;
      const result = await convert({ markdown });
      expect(result.warnings).toContain(`unsafe_link: ${scheme}`);
      expect(externalTargets(result.docx, 'word/_rels/document.xml.rels')).toEqual([]);
      expect(externalTargets(result.docx, 'word/_rels/footnotes.xml.rels')).toEqual([]);
      expect(part(result.docx, 'word/document.xml')).toContain('the text');
      expect(part(result.docx, 'word/footnotes.xml')).toContain('noted');
    });
  }

  it('a reference-style link through a javascript: definition stays text', async () => {
    const result = await convert({ markdown: 'A [ref][x].\n\n[x]: javascript:void(0)\n' });
    expect(result.warnings).toEqual(['unsafe_link: javascript']);
    expect(externalTargets(result.docx, 'word/_rels/document.xml.rels')).toEqual([]);
  });

  it('http, https, mailto still become hyperlinks; an #anchor to a heading is an internal link, no relationship', async () => {
    const result = await convert({
      markdown:
        '# Section\n\n[a](http://example.com/a) [b](HTTPS://example.com/b) [c](mailto:x@example.com) [d](#section)\n',
    });
    expect(result.warnings).toEqual([]);
    expect(part(result.docx, 'word/document.xml')).toContain('w:anchor="section"');
    expect(externalTargets(result.docx, 'word/_rels/document.xml.rels')).toEqual([
      'http://example.com/a',
      'HTTPS://example.com/b',
      'mailto:x@example.com',
    ]);
  });

  it('unsafeLinkScheme reads schemes as URL parsers do (case, tabs, newlines, leading controls)', () => {
    expect(unsafeLinkScheme(' \u0001java\tscript:alert(1)')).toBe('javascript');
    expect(unsafeLinkScheme('jav\nascript:x')).toBe('javascript');
    expect(unsafeLinkScheme('  https://example.com')).toBeUndefined();
    expect(unsafeLinkScheme('#top')).toBeUndefined();
    expect(unsafeLinkScheme('')).toBeUndefined();
    expect(unsafeLinkScheme('x.md')).toBe('relative');
  });
});
