// The built-in template "Docwright Default": what its styles are, as a mapping editor offers them.
import { describe, expect, it } from 'vitest';
import { defaultTemplate, readTemplate } from '../../server/convert/index.ts';
import { part } from '../helpers/docx.ts';

describe('the built-in template', () => {
  const styles = readTemplate(defaultTemplate()).styles;

  it('defines "Strong" as a character style (bold), so it is never offered for paragraphs', () => {
    const strong = styles.filter((s) => s.name === 'Strong');
    expect(strong.map((s) => s.type)).toEqual(['character']);
    const xml = part(defaultTemplate(), 'word/styles.xml');
    const element = xml.slice(xml.indexOf('w:styleId="Strong"'));
    expect(element.slice(0, element.indexOf('</w:style>'))).toContain('<w:b/>');
  });

  it('says how every line spacing it sets is meant (w:lineRule auto: 276 is 1.15 lines, not an exact 13.8 pt)', () => {
    // Without w:lineRule, LibreOffice reads w:line as an exact height: pictures clipped to a line, a title's two lines
    // printed over each other (seen on the rendered pages).
    const xml = part(defaultTemplate(), 'word/styles.xml');
    const spacings = [...xml.matchAll(/<w:spacing [^>]*w:line="[^"]*"[^>]*>/g)].map((m) => m[0]);
    expect(spacings.length).toBeGreaterThan(0);
    for (const spacing of spacings) expect(spacing).toContain('w:lineRule="auto"');
  });

  it('has no other run formatting dressed as a paragraph style', () => {
    expect(styles.filter((s) => s.type === 'paragraph' && /^(strong|emphasis)$/i.test(s.name))).toEqual([]);
  });
});
