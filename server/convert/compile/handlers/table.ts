import { table as tableXml, type Alignment, type TableRowXml, type Xml } from '../ooxml.ts';
import type { AlignType, Table as MdTable } from 'mdast';
import type { State } from '../state.ts';

const ALIGN: Record<NonNullable<AlignType>, Alignment> = { left: 'left', right: 'right', center: 'center' };

/**
 * A table across the text width: the header row repeats on every page, columns keep their markdown alignment, and
 * every cell holds a paragraph (Word refuses a cell without one).
 */
export function table(state: State, node: MdTable): Xml[] {
  const out = state.flushPendingItem();
  const columns = Math.max(1, ...node.children.map((row) => row.children.length));
  const indent = state.blockIndent('paragraph');
  const width = Math.max(columns * 360, state.textWidthTwips - indent);
  const columnWidth = Math.floor(width / columns);
  const headerRow = state.styles.tableHeaderRow;
  const rows = node.children.map((row, r): TableRowXml => {
    const isHeader = r === 0 && headerRow;
    const cells: TableRowXml['cells'][number][] = [];
    for (let c = 0; c < columns; c++) {
      const cell = row.children[c];
      const align = node.align?.[c];
      const context = { cellAlignment: align ? ALIGN[align] : undefined, inHeaderCell: isHeader && !state.styles.table, inFootnote: state.inFootnote };
      const paragraph = state.isolated(context, () => state.paragraph('cell', cell ? state.inlines(cell.children) : []));
      cells.push({ width: columnWidth, content: paragraph });
    }
    return { header: isHeader, cells };
  });
  out.push(
    tableXml(
      {
        width: columnWidth * columns,
        columnWidths: Array.from({ length: columns }, () => columnWidth),
        ...(indent > 0 ? { indent } : {}),
        ...(state.styles.table ? { style: state.styles.table } : {}),
      },
      rows,
    ),
  );
  return out;
}
