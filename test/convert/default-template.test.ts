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

  it('has no other run formatting dressed as a paragraph style', () => {
    expect(styles.filter((s) => s.type === 'paragraph' && /^(strong|emphasis)$/i.test(s.name))).toEqual([]);
  });
});
