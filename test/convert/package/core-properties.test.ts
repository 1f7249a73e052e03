// docProps/core.xml holds front matter text as written: characters XML 1.0 forbids (control characters, lone
// surrogates, U+FFFE) must not reach it, or the part is not XML and Word reports the document as corrupt.
import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { convert } from '../../../server/convert/index.ts';
import { part } from '../../helpers/docx.ts';

describe('document properties', () => {
  it('drop the characters XML forbids from front matter values, keeping the rest', async () => {
    const markdown = `---\ntitle: "T\\x0b\\x01\\x1f end \\uD800 x"\nauthor: "A\\u0000B"\nsubject: "S\\uFFFE"\nkeywords: "k\\x08w"\n---\n\n# Body\n`;
    const xml = part(
      (await convert({ markdown, created: new Date('2026-01-02T03:04:05Z') })).docx,
      'docProps/core.xml',
    );
    const errors: string[] = [];
    const doc = new DOMParser({
      onError: (level, message) => {
        errors.push(`${level}: ${message}`);
      },
    }).parseFromString(xml, 'text/xml');
    expect(errors).toEqual([]);
    const text = (name: string) => doc.getElementsByTagNameNS('*', name).item(0)?.textContent;
    expect(text('title')).toBe('T end  x');
    expect(text('creator')).toBe('AB');
    expect(text('subject')).toBe('S');
    expect(text('keywords')).toBe('kw');
  });
});
