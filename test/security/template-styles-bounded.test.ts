// A template's styles are read on the server's main thread when it is uploaded (its mapping matched by style name:
// server/convert/auto-mapping.ts) and in every conversion (the styles that carry numbering: package/numbering.ts).
// Both must take time in proportion to the template, whatever its style names and based-on chains say: a 12 KB
// template whose one style is named "A" × 30,000 held the event loop 12.6 s, a chain of 9,900 based-on styles 146 s
// (the review of 2026-11-27), as the name was split with a backtracking regexp and each chain walked whole for each
// element and style.
import { performance } from 'node:perf_hooks';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate, readTemplate } from '../../server/convert/index.ts';
import { suggestRules } from '../../server/convert/auto-mapping.ts';
import { validateDocx } from '../helpers/docx.ts';

/** The built-in template with `extra` style definitions added. */
function templateWith(extra: string): Uint8Array {
  const files = unzipSync(defaultTemplate());
  const styles = strFromU8(files['word/styles.xml'] ?? new Uint8Array());
  files['word/styles.xml'] = strToU8(styles.replace('</w:styles>', `${extra}</w:styles>`));
  return zipSync(files, { level: 6 });
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

const longName = templateWith(
  `<w:style w:type="paragraph" w:customStyle="1" w:styleId="Evil"><w:name w:val="${'A'.repeat(30_000)}"/></w:style>`,
);
const chain = templateWith(
  Array.from(
    { length: 9_900 },
    (_, i) =>
      `<w:style w:type="paragraph" w:customStyle="1" w:styleId="B${i}"><w:name w:val="n${i}"/><w:basedOn w:val="B${(i + 1) % 9_900}"/><w:pPr><w:numPr><w:numId w:val="1"/></w:numPr><w:ind w:left="${i}"/></w:pPr></w:style>`,
  ).join(''),
);

describe("a template's styles are read in time proportional to the template", () => {
  it('a style named "A" × 30,000 is matched by name in under 2 s (12.6 s before)', () => {
    const styles = readTemplate(longName).styles;
    const { ms } = timed(() => suggestRules(styles));
    expect(ms).toBeLessThan(2_000);
  });

  it('a chain of 9,900 based-on styles is matched by name in under 2 s (146 s before)', () => {
    const styles = readTemplate(chain).styles;
    const { ms } = timed(() => suggestRules(styles));
    expect(ms).toBeLessThan(2_000);
  });

  it('and a document converts through that chain: valid, in seconds', async () => {
    const start = performance.now();
    const result = await convert({ markdown: '# Title\n\nText.\n\n```\ncode\n```\n', template: chain });
    expect(performance.now() - start).toBeLessThan(10_000);
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  });
});
