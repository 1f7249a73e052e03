import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { fixture, pdfText, validateDocx } from '../helpers/docx.ts';
import { CORPORATE_RULES } from '../helpers/corporate.ts';

/** Every element the engine supports, each marked by a sentinel word to find in the rendered text. */
const MARKDOWN = `# Alphahead

## Betahead

### Gammahead

#### Deltahead

##### Epsilonhead

###### Zetahead

Plain paragraph with **Boldword** and *Italicword* and ~~Strikeword~~ and \`Inlinecode\`.

- Bulletone
  - Bullettwo
    - Bulletthree

1. Orderone
2. Ordertwo

Betweenpara separates the lists.

5. Orderfive
6. Ordersix

- [ ] Taskopen
- [x] Taskdone

> Quoteouter
>
> > Quoteinner

| Cellhead | Cellheadtwo |
| --- | --- |
| Cellbody | Cellbodytwo |

A [Linktext](https://example.com/docwright) in a sentence.

![Imagealt](https://example.com/picture.png)

\`\`\`
Codeline = 1
\`\`\`

Notecall has a footnote[^note].

---

Afterrule closes the content.

[^note]: Footnotetext lives at the foot of the page.
`;

/** The body sentinels in document order (the footnote text is placed at the foot of its page, so it is apart). */
const BODY_SENTINELS = [
  'Alphahead',
  'Betahead',
  'Gammahead',
  'Deltahead',
  'Epsilonhead',
  'Zetahead',
  'Boldword',
  'Italicword',
  'Strikeword',
  'Inlinecode',
  'Bulletone',
  'Bullettwo',
  'Bulletthree',
  'Orderone',
  'Ordertwo',
  'Betweenpara',
  'Orderfive',
  'Ordersix',
  'Taskopen',
  'Taskdone',
  'Quoteouter',
  'Quoteinner',
  'Cellhead',
  'Cellheadtwo',
  'Cellbody',
  'Cellbodytwo',
  'Linktext',
  '[Image: Imagealt]',
  'Codeline = 1',
  'Notecall',
  'Afterrule',
];

/** Asserts each sentinel occurs in the text, in the given order, and returns where each was found. */
function expectInOrder(text: string, sentinels: readonly string[], from = 0): number[] {
  const positions: number[] = [];
  let at = from;
  for (const sentinel of sentinels) {
    const found = text.indexOf(sentinel, at);
    expect(found, `"${sentinel}" missing after offset ${at} in the PDF text:\n${text}`).toBeGreaterThanOrEqual(0);
    positions.push(found);
    at = found + sentinel.length;
  }
  return positions;
}

/** Checks what LibreOffice shows of the content, whatever the template. */
function expectContent(text: string): void {
  expectInOrder(text, BODY_SENTINELS);
  expect(text).toContain('Footnotetext lives at the foot of the page.');
  // Numbering as rendered: the first ordered list starts at 1, the one after a paragraph at 5.
  expect(text).toMatch(/1\.\s+Orderone/);
  expect(text).toMatch(/2\.\s+Ordertwo/);
  expect(text).toMatch(/5\.\s+Orderfive/);
  expect(text).toMatch(/6\.\s+Ordersix/);
  // The markdown markers are not shown as text.
  expect(text).not.toContain('**Boldword**');
  expect(text).not.toContain('[^note]');
  expect(text).not.toContain('{{content}}');
  // The rule is a page break: the content after it is on a later page (pdftotext separates pages with a form feed).
  const pages = text.split('\f');
  const pageOf = (word: string) => pages.findIndex((p) => p.includes(word));
  expect(pageOf('Afterrule')).toBeGreaterThan(pageOf('Notecall'));
}

describe('LibreOffice opens the converted documents', () => {
  it('with the default template, every element shows', async () => {
    const { docx, warnings } = await convert({ markdown: MARKDOWN });
    expect(warnings).toEqual(['image_placeholder: Imagealt']); // the one image becomes a placeholder, and says so
    const validation = await validateDocx(docx);
    expect(validation.ok, validation.report).toBe(true);
    const text = await pdfText(docx);
    expectContent(text);
    // The default template's footer.
    expect(text).toMatch(/Page 1 of \d/);
  });

  it('with the corporate template, the content sits between its cover and signature, under its header', async () => {
    const { docx, warnings } = await convert({
      markdown: MARKDOWN,
      template: fixture('templates', 'corporate.docx'),
      mapping: CORPORATE_RULES,
    });
    expect(warnings).toEqual(['image_placeholder: Imagealt']); // the one image becomes a placeholder, and says so
    const validation = await validateDocx(docx);
    expect(validation.ok, validation.report).toBe(true);
    const text = await pdfText(docx);
    expectContent(text);
    const [header, cover, signature] = [
      text.indexOf('ACME Corporation Internal'),
      text.indexOf('Corporate Cover Page'),
      text.indexOf('Signature block'),
    ];
    const first = text.indexOf(BODY_SENTINELS[0] as string);
    const last = text.indexOf(BODY_SENTINELS[BODY_SENTINELS.length - 1] as string);
    expect(header).toBeGreaterThanOrEqual(0);
    expect(header).toBeLessThan(cover);
    expect(cover).toBeLessThan(first);
    expect(last).toBeLessThan(signature);
    // The header and footer show on every page (the page break makes at least two).
    const pages = text.split('\f').filter((p) => p.trim().length > 0);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    for (const page of pages) {
      expect(page).toContain('ACME Corporation Internal');
      expect(page).toMatch(/Corporate Confidential - Page \d/);
    }
  });
});
