import { FootnoteReferenceRun, Paragraph, type ParagraphChild } from 'docx';
import type { FootnoteReference, Nodes, Parents, PhrasingContent, Table } from 'mdast';
import type { State } from '../state.ts';

/** A table as paragraphs, one a row, its cells separated by a bar: Docwright's footnotes hold paragraphs only. */
function rowsAsParagraphs(table: Table): Nodes[] {
  return table.children.map((row) => ({
    type: 'paragraph',
    children: row.children.flatMap((cell, i): PhrasingContent[] =>
      i === 0 ? cell.children : [{ type: 'text', value: ' | ' }, ...cell.children],
    ),
  }));
}

/** Replaces the tables anywhere in a footnote's blocks by their rows as paragraphs, with a warning. */
function flattenTables(state: State, root: Parents): void {
  const stack: Parents[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'paragraph' || node.type === 'heading') continue;
    const children = node.children as Nodes[];
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Nodes;
      if (child.type === 'table') {
        state.warn('table_in_footnote: flattened to text');
        const rows = rowsAsParagraphs(child);
        children.splice(i, 1, ...rows);
        i += rows.length - 1;
      } else if ('children' in child) stack.push(child);
    }
  }
}

/** A GFM footnote reference: a real Word footnote holding the definition's content. */
export function footnoteReference(state: State, node: FootnoteReference): ParagraphChild[] {
  const id = node.identifier.toLowerCase();
  const definition = state.footnoteDefinitions.get(id);
  // Word has no footnotes inside footnotes; a reference there keeps its label as text.
  if (!definition || state.inFootnote) return [state.run(`[^${node.label ?? node.identifier}]`)];
  state.printedFootnotes.add(id);
  const footnoteId = state.nextFootnoteId();
  flattenTables(state, definition);
  state.isolated({ inFootnote: true }, () => {
    const paragraphs = state.blocks(definition.children).filter((b): b is Paragraph => b instanceof Paragraph);
    state.footnotes[footnoteId] = { children: paragraphs.length > 0 ? paragraphs : [state.paragraph('footnote', [])] };
  });
  return [new FootnoteReferenceRun(footnoteId)];
}
