// Every document × template pair of ../shared/corpus/ (and test/fixtures/corpus-extra/), converted with the mapping
// beside its template where there is one, and checked: schema-valid, opens in LibreOffice (one run for all outputs),
// ≥ 97 % of the visible words kept, every id defined, the template's styles/theme/headers/footers kept and its
// sections that stay (docs/templates.md) with the headers and footers they showed, no external relationship but
// hyperlinks. `npx tsx bench/corpus.ts` prints the same checks as a table.
import { describe, expect, it } from 'vitest';
import { convert } from '../../server/convert/index.ts';
import { CHECKS, corpusPairs, EXTRA_CORPUS, runCorpus, SHARED_CORPUS, type PairResult } from './run.ts';

const pairs = corpusPairs([SHARED_CORPUS, EXTRA_CORPUS]);
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
});
