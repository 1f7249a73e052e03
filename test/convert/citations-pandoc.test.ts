// Citations beside pandoc's (issue 34, item 4): the same markdown and BibTeX file through `pandoc --citeproc` with
// the same APA style (citation-js's bundled apa.csl, written out for pandoc) and through Docwright; the citation
// texts of both .docx files must be the same, but for the differences docs/captions-references.md lists ("Beside pandoc").
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const REFS = resolve(import.meta.dirname, '../fixtures/citations/refs.bib');
const hasPandoc = spawnSync('pandoc', ['--version']).status === 0;
if (!hasPandoc) console.log('citations-pandoc.test.ts: pandoc is not installed, so the comparison with it is skipped');

const MARKDOWN = `---
bibliography: refs.bib
csl: apa.csl
---

One [@doe2020]. Two [@doe2020, p. 33]. Three [see @doe2020; @smith2019, chap. 2]. Four [-@smith2019].
Five @garcia2018 says. Six @w3c2021 [p. 4]. Seven [@smith2019, pp. 45-50]. Eight [@doe2020; @garcia2018; @w3c2021].
Nine [@smith2019, p. 50, my note].
`;

/** A document's paragraphs as text (its runs' text and tabs joined). */
function paragraphs(docx: Uint8Array): string[] {
  return part(docx, 'word/document.xml')
    .split('</w:p>')
    .map((p) =>
      [...p.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:tab\/>/g)]
        .map((m) => m[1] ?? '\t')
        .join('')
        .replaceAll('&amp;', '&'),
    )
    .filter((text) => text.trim() !== '');
}

describe.skipIf(!hasPandoc)('citations beside pandoc --citeproc (APA)', () => {
  it('the same citation texts; the bibliography the same but for the titles pandoc writes in sentence case', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-cite-pandoc-'));
    copyFileSync(REFS, join(dir, 'refs.bib'));
    const styles = createRequire(import.meta.url)('@citation-js/plugin-csl/lib/styles.json') as Record<string, string>;
    writeFileSync(join(dir, 'apa.csl'), styles.apa ?? '');
    writeFileSync(join(dir, 'doc.md'), MARKDOWN);
    execFileSync('pandoc', ['--citeproc', 'doc.md', '-o', 'pandoc.docx'], { cwd: dir });
    const theirs = paragraphs(new Uint8Array(readFileSync(join(dir, 'pandoc.docx'))));
    const result = await convert({ markdown: MARKDOWN, bibliography: { text: readFileSync(REFS, 'utf8') } });
    expect(result.warnings).toEqual([]);
    const ours = paragraphs(result.docx);
    // The cited text: word for word, soft line breaks aside, but for a chapter's label: APA's style prints a numeric
    // chapter as "Chapter 2" (APA 8.13), as citeproc-js does; pandoc 2.17's citeproc leaves the label out.
    const cited = (list: string[]) => list[0]?.replace(/\s+/g, ' ');
    expect(cited(ours)?.replace('Smith, 2019, Chapter 2', 'Smith, 2019, 2')).toBe(cited(theirs));
    expect(cited(ours)).toContain('Three (see Doe & Roe, 2020; Smith, 2019, Chapter 2).');
    expect(cited(ours)).toContain('Nine (Smith, 2019, p. 50, my note).');
    // The bibliography: ours under a "References" heading pandoc does not write; pandoc lowercases titles (APA's
    // sentence case), citeproc-js keeps them as the BibTeX file writes them.
    expect(ours[1]).toBe('References');
    const entries = ours.slice(2);
    expect(entries).toHaveLength(4);
    expect(entries.map((e) => e.toLowerCase())).toEqual(theirs.slice(1).map((e) => e.toLowerCase()));
    expect(entries[0]).toBe('Doe, J., & Roe, R. (2020). The Art of Markdown. Example Press.');
    const { ok, report } = await validateDocx(result.docx);
    expect(ok, report).toBe(true);
  }, 120_000);
});
