import type { Table, TableRow } from 'mdast';

/**
 * Takes a table's last body row off when its source line passes `test` (GFM reads a line under a table's rows, with
 * no blank line between, as a row: a `:::` fence or a `Table:` caption of pandoc's), the table's end moved to the row
 * before. Returns the row taken, or undefined.
 */
export function takeLastRow(table: Table, source: string, test: (line: string) => boolean): TableRow | undefined {
  const row = table.children.at(-1);
  const from = row?.position?.start.offset;
  const to = row?.position?.end.offset;
  if (!row || table.children.length < 2 || from === undefined || to === undefined) return undefined;
  if (!test(source.slice(from, to))) return undefined;
  table.children.pop();
  const end = table.children.at(-1)?.position?.end;
  if (table.position && end) table.position.end = end;
  return row;
}
