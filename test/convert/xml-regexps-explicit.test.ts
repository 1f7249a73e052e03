// Importing the engine patches nothing (issue 31: no import-time patching in server/convert/): xmldom builds its
// end-tag regexps afresh until an entry point of the engine (convert, readTemplate) calls rememberXmlRegexps().
import grammar from '@xmldom/xmldom/lib/grammar.js';
import { describe, expect, it } from 'vitest';

describe('xmldom regexps, remembered on purpose', () => {
  it('are left alone by importing the engine (every part of it), and remembered once convert() runs', async () => {
    const before = grammar.reg;
    const engine = await import('../../server/convert/index.ts');
    await import('../../server/convert/package/dom.ts');
    await import('../../server/convert/xml-regexps.ts');
    expect(grammar.reg).toBe(before);
    const part = /q/;
    expect(grammar.reg('^', part, '$')).not.toBe(grammar.reg('^', part, '$'));

    await engine.convert({ markdown: '# A heading', created: new Date(0) });
    expect(grammar.reg).not.toBe(before);
    expect(grammar.reg('^', part, '$')).toBe(grammar.reg('^', part, '$'));
    expect(grammar.reg('^', part, '$').source).toBe('^q$');
  });

  it('are remembered by readTemplate(), the other entry point', async () => {
    const { readTemplate, defaultTemplate } = await import('../../server/convert/index.ts');
    readTemplate(defaultTemplate());
    const part = /r/;
    expect(grammar.reg('^', part, '$')).toBe(grammar.reg('^', part, '$'));
  });
});
