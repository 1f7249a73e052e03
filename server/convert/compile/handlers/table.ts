import { AlignmentType, Table, TableCell, TableRow, WidthType, type FileChild } from 'docx';
import type { AlignType, Table as MdTable, TableData } from 'mdast';
import { directed, rightToLeftTable } from '../../bidi.ts';
import type { State } from '../state.ts';
import { captionParagraph } from '../captions.ts';

const ALIGN: Record<NonNullable<AlignType>, (typeof AlignmentType)[keyof typeof AlignmentType]> = {
  left: AlignmentType.LEFT,
  right: AlignmentType.RIGHT,
  center: AlignmentType.CENTER,
};

/** The narrowest column (twips): a quarter inch. */
const MIN_COLUMN = 360;

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** `widths` made to add up to `width`: what rounding down left over goes to the widest column. */
function whole(widths: number[], width: number): number[] {
  const widest = widths.indexOf(Math.max(...widths));
  widths[widest] = (widths[widest] ?? 0) + width - sum(widths);
  return widths;
}

/** A character's width in a cell, on average (twips: half of an 11 pt em), and a cell's left and right margins. */
const CHAR = 110;
const CELL_MARGINS = 216;

/**
 * The columns' widths across `width`: equal, or in the proportions the markdown's separator row or content gave
 * (parse/table-widths.ts), where no column is narrower than its longest word (nor MIN_COLUMN), as a browser lays a
 * table out: the columns a proportional share leaves narrower take their minimum, the others share what is left.
 * Where the minimums alone pass `width`, the columns are in their proportions.
 */
export function columnWidths(width: number, columns: number, data: TableData | undefined): number[] {
  const weights = data?.columnWeights;
  if (weights?.length !== columns) return Array.from({ length: columns }, () => Math.floor(width / columns));
  const mins = weights.map((_, c) => Math.max(MIN_COLUMN, (data?.columnMinChars?.[c] ?? 0) * CHAR + CELL_MARGINS));
  const total = sum(mins);
  if (total >= width)
    return whole(
      mins.map((m) => Math.floor((width * m) / total)),
      width,
    );
  const fixed = new Set<number>();
  for (;;) {
    const free = width - sum(mins.filter((_, c) => fixed.has(c)));
    const shared = sum(weights.filter((_, c) => !fixed.has(c)));
    const below = weights.findIndex((w, c) => !fixed.has(c) && (free * w) / shared < (mins[c] ?? 0));
    if (below < 0)
      return whole(
        weights.map((w, c) => (fixed.has(c) ? (mins[c] ?? 0) : Math.floor((free * w) / shared))),
        width,
      );
    fixed.add(below);
  }
}

/**
 * The conditional formatting a table without a header row takes from its style: Word's default look (first column,
 * banded rows) without the first row's. Every flag is written: an office suite reads a missing one as on.
 */
const HEADLESS_LOOK = {
  firstRow: false,
  lastRow: false,
  firstColumn: true,
  lastColumn: false,
  noHBand: false,
  noVBand: true,
};

/**
 * A table across the text width: the header row repeats on every page, columns keep their markdown alignment, and
 * every cell holds a paragraph (Word refuses a cell without one).
 */
export function table(state: State, node: MdTable): FileChild[] {
  const out = state.flushPendingItem();
  // A numbered caption goes above the table, as Word places a table's (captions.ts).
  const numbered = state.captions.of(node);
  const caption = node.data?.caption;
  if (numbered && caption)
    out.push(captionParagraph(state, numbered, state.inlines(caption.children), { keepNext: true }));
  const columns = Math.max(1, ...node.children.map((row) => row.children.length));
  const indent = state.blockIndent('paragraph');
  const widths = columnWidths(Math.max(columns * MIN_COLUMN, state.textWidthTwips - indent), columns, node.data);
  // An HTML table with no header row has none here either (no row repeated, no header look from the table style).
  const headless = node.data?.headless === true;
  const headerRow = state.styles.tableHeaderRow && !headless;
  const headerRows = node.data?.headerRows ?? 1;
  // Grid places an HTML cell's colspan or rowspan covers (the parser left an empty cell at each): not written, as
  // the spanning cell merges them (docx writes a row span's continuing cells itself).
  const covered = new Set<number>();
  const rows = node.children.map((row, r) => {
    const isHeader = r < headerRows && headerRow;
    const cells: TableCell[] = [];
    for (let c = 0; c < columns; c++) {
      if (covered.has(r * columns + c)) continue;
      const cell = row.children[c];
      const span = cell?.data?.span;
      const columnSpan = Math.min(span?.columns ?? 1, columns - c);
      const rowSpan = Math.min(span?.rows ?? 1, node.children.length - r);
      for (let dr = 0; dr < rowSpan; dr++)
        for (let dc = 0; dc < columnSpan; dc++) if (dr > 0 || dc > 0) covered.add((r + dr) * columns + c + dc);
      const align = node.align?.[c];
      const context = {
        cellAlignment: align ? ALIGN[align] : undefined,
        inHeaderCell: isHeader && !state.styles.table,
        inFootnote: state.inFootnote,
      };
      const paragraph = state.isolated(context, () =>
        cell
          ? directed(state, cell, () => state.paragraph('cell', state.inlines(cell.children)))
          : state.paragraph('cell', []),
      );
      cells.push(
        new TableCell({
          children: [paragraph],
          width: { size: sum(widths.slice(c, c + columnSpan)), type: WidthType.DXA },
          ...(columnSpan > 1 ? { columnSpan } : {}),
          ...(rowSpan > 1 ? { rowSpan } : {}),
        }),
      );
    }
    return new TableRow({ children: cells, tableHeader: isHeader, cantSplit: true });
  });
  out.push(
    new Table({
      rows,
      width: { size: sum(widths), type: WidthType.DXA },
      columnWidths: widths,
      ...(indent > 0 ? { indent: { size: indent, type: WidthType.DXA } } : {}),
      ...(state.styles.table ? { style: state.styles.table } : {}),
      ...(headless ? { tableLook: HEADLESS_LOOK } : {}),
      ...(rightToLeftTable(state, node) ? { visuallyRightToLeft: true } : {}),
    }),
  );
  return out;
}
