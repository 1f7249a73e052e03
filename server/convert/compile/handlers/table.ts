import { AlignmentType, Table, TableCell, TableRow, WidthType, type FileChild } from 'docx';
import type { AlignType, Table as MdTable } from 'mdast';
import { directed, rightToLeftTable } from '../../bidi.ts';
import type { State } from '../state.ts';

const ALIGN: Record<NonNullable<AlignType>, (typeof AlignmentType)[keyof typeof AlignmentType]> = {
  left: AlignmentType.LEFT,
  right: AlignmentType.RIGHT,
  center: AlignmentType.CENTER,
};

/**
 * A table across the text width: the header row repeats on every page, columns keep their markdown alignment, and
 * every cell holds a paragraph (Word refuses a cell without one).
 */
export function table(state: State, node: MdTable): FileChild[] {
  const out = state.flushPendingItem();
  const columns = Math.max(1, ...node.children.map((row) => row.children.length));
  const indent = state.blockIndent('paragraph');
  const width = Math.max(columns * 360, state.textWidthTwips - indent);
  const columnWidth = Math.floor(width / columns);
  const headerRow = state.styles.tableHeaderRow;
  const rows = node.children.map((row, r) => {
    const isHeader = r === 0 && headerRow;
    const cells: TableCell[] = [];
    for (let c = 0; c < columns; c++) {
      const cell = row.children[c];
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
      cells.push(new TableCell({ children: [paragraph], width: { size: columnWidth, type: WidthType.DXA } }));
    }
    return new TableRow({ children: cells, tableHeader: isHeader, cantSplit: true });
  });
  out.push(
    new Table({
      rows,
      width: { size: columnWidth * columns, type: WidthType.DXA },
      columnWidths: Array.from({ length: columns }, () => columnWidth),
      ...(indent > 0 ? { indent: { size: indent, type: WidthType.DXA } } : {}),
      ...(state.styles.table ? { style: state.styles.table } : {}),
      ...(rightToLeftTable(state, node) ? { visuallyRightToLeft: true } : {}),
    }),
  );
  return out;
}
