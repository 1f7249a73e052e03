// Every document × template pair of ../shared/corpus/ (and test/fixtures/corpus-extra/), converted with the mapping
// beside its template where there is one, and checked: schema-valid, opens in LibreOffice (one run for all outputs),
// ≥ 97 % of the visible words kept, every id defined, the template's styles/theme/headers/footers kept and its
// sections that stay (docs/templates.md) with the headers and footers they showed, no external relationship but
// hyperlinks. `npx tsx bench/corpus.ts` prints the same checks as a table.
// Issue 32, acceptance 2: on the same render, what a reader sees on the pages of every shared-corpus pair (real
// documents through real templates nobody here wrote): page 1 holds the document's first words (or the template's
// cover), no page shows only the header and footer, list items are at the body's size, no table is wider than its
// column (pages.ts, read with poppler; the checks themselves are proved on hand-made documents in
// pages-checks.test.ts). One LibreOffice render serves both.
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { PAGE_CHECKS } from './pages.ts';
import { CHECKS, corpusPairs, EXTRA_CORPUS, runCorpus, SHARED_CORPUS, type PairResult } from './run.ts';

const pairs = corpusPairs([SHARED_CORPUS, EXTRA_CORPUS]);
/** The pairs a reader's checks hold for: the shared corpus's (the extra corpus holds the engine's stress cases). */
const shared = new Set(corpusPairs([SHARED_CORPUS]).map((pair) => pair.name));

const created = new Date('2026-01-01T00:00:00Z');

describe('the corpus: real documents through real templates', () => {
  let results: PairResult[] = [];
  it('converts every pair', { timeout: 1_200_000 }, async () => {
    expect(pairs.length).toBeGreaterThan(0);
    results = await runCorpus(
      pairs,
      async (markdown, template, mapping) =>
        (await convert({ markdown, template, mapping: mapping as Parameters<typeof convert>[0]['mapping'], created }))
          .docx,
      { pages: true },
    );
    expect(results).toHaveLength(pairs.length);
  });
  for (const check of CHECKS) {
    it(`every pair passes "${check}"`, () => {
      const failed = results
        .filter((r) => r.checks[check] !== null)
        .map((r) => `${r.pair.name}: ${String(r.checks[check])}`);
      expect(failed).toEqual([]);
    });
  }
  for (const check of PAGE_CHECKS) {
    it(`every shared-corpus pair passes the reader's check "${check}"`, () => {
      const mine = results.filter((r) => shared.has(r.pair.name));
      // Not vacuously: the pairs were converted and rendered.
      expect(mine).toHaveLength(shared.size);
      expect(mine.filter((r) => r.pages === undefined).map((r) => r.pair.name)).toEqual([]);
      const failed = mine.filter((r) => r.pages?.[check]).map((r) => String(r.pages?.[check]));
      expect(failed).toEqual([]);
    });
  }
});
