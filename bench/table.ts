/** Plain-text table formatting for the benchmark report. */

export const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** A ratio as "3.2×" (two decimals below 1, none from 100). */
export function ratio(r: number): string {
  if (!Number.isFinite(r)) return 'n/a';
  const digits = r < 1 ? 2 : r < 100 ? 1 : 0;
  return `${r.toFixed(digits)}×`;
}

/** Aligned columns: `right[i]` right-aligns column i (numbers), else left. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  right: readonly boolean[],
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    widths
      .map((w, i) => {
        const c = cells[i] ?? '';
        return right[i] ? c.padStart(w) : c.padEnd(w);
      })
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
