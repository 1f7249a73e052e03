import type { Parents, Root, Table } from 'mdast';
import { toString } from 'mdast-util-to-string';

// Column widths of a pipe table with a line longer than 72 characters (pandoc's --columns), whose cells must wrap:
// - as pandoc reads them (its manual, "pipe_tables"), in the proportions of the dashes (and colons) of the separator
//   row's cells, so `|---|-|` gives 3/4 and 1/4 — when the writer drew them: the separator's cells are neither all
//   alike (`|---|---|`) nor simply as wide as the header's (a GFM writer, and every markdown formatter, pads the
//   separator to the header, which says nothing of the widths; pandoc would then give the longest text the narrowest
//   column);
// - otherwise in the proportions of their content: each column's longest text (counted up to 80 characters, at
//   least 3), as a browser's automatic table layout would.
// Either way no column is narrower than its longest word (counted up to 24 characters), as in a browser: a word is
// never broken letter by letter (columnMinChars). A table of short lines keeps columns of equal width.

declare module 'mdast' {
  interface TableData {
    /** The separator row's cell lengths, for a table with a line longer than WIDE_LINE (compile/handlers/table.ts). */
    columnWeights?: number[];
    /** Each column's longest word in characters (up to MAX_WORD), for the same tables: no column is narrower. */
    columnMinChars?: number[];
  }
}

/** pandoc's default --columns: a table with a longer line has the widths its separator row draws. */
const WIDE_LINE = 72;

const CONTAINERS = new Set(['root', 'blockquote', 'list', 'listItem', 'footnoteDefinition']);
const SEPARATOR_CELL = /^\s*(:?-+:?)\s*$/;

/** Marks each markdown table that has a line wider than WIDE_LINE with its separator row's proportions. */
export function tableColumnWeights(tree: Root, markdown: string): void {
  const stack: Parents[] = [tree];
  for (let parent = stack.pop(); parent; parent = stack.pop()) {
    for (const child of parent.children) {
      if (child.type === 'table') {
        const weights = weightsOf(child, markdown);
        if (weights) child.data = { ...child.data, columnWeights: weights, columnMinChars: longestWords(child) };
      } else if (CONTAINERS.has(child.type)) stack.push(child as Parents);
    }
  }
}

function weightsOf(table: Table, markdown: string): number[] | undefined {
  const from = table.position?.start.offset;
  const to = table.position?.end.offset;
  const column = table.position?.start.column ?? 1;
  if (from === undefined || to === undefined) return undefined;
  // The table's lines without what a container (a quote's `>`, a list item's indent) puts before them.
  const lines = markdown
    .slice(from - (column - 1), to)
    .split(/\r\n|\r|\n/)
    .map((line) => {
      const prefix = line.slice(0, column - 1);
      return /^[\s>]*$/.test(prefix) ? line.slice(column - 1) : line;
    });
  if (lines.length < 2 || lines.every((line) => line.length <= WIDE_LINE)) return undefined;
  const columns = table.children[0]?.children.length ?? 0;
  const cells = rowCells(lines[1] ?? '');
  const lengths = cells.map((cell) => SEPARATOR_CELL.exec(cell)?.[1]?.length ?? 0);
  if (cells.length !== columns || lengths.some((n) => n === 0)) return undefined;
  const header = rowCells(lines[0] ?? '');
  const padded = header.length === columns && header.every((cell, c) => cell.length === cells[c]?.length);
  // `|---|---|`, the shortest separator, draws nothing either.
  const uniform = lengths.every((n) => n === lengths[0]);
  if (!padded && !uniform) return lengths;
  return Array.from({ length: columns }, (_, c) =>
    table.children.reduce(
      (most, row) => Math.max(most, Math.min(MAX_WEIGHT, toString(row.children[c]).length)),
      MIN_WEIGHT,
    ),
  );
}

/** A word longer than this many characters may break: its column is not widened past it. */
const MAX_WORD = 24;

/** Each column's longest word, in characters (up to MAX_WORD). */
function longestWords(table: Table): number[] {
  const columns = table.children[0]?.children.length ?? 0;
  return Array.from({ length: columns }, (_, c) =>
    table.children.reduce((most, row) => {
      const cell = row.children[c];
      if (!cell) return most;
      let longest = most;
      for (const word of toString(cell).split(/\s+/)) longest = Math.max(longest, Math.min(MAX_WORD, word.length));
      return longest;
    }, 0),
  );
}

/** Content weights: a column's longest text, counted up to this many characters… */
const MAX_WEIGHT = 80;
/** …and at least this many. */
const MIN_WEIGHT = 3;

/** A row's cells as written, between its pipes (its outer pipes optional; `\|` is not a pipe). */
function rowCells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/);
}
