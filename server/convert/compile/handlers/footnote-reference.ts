import {
  BookmarkEnd,
  BookmarkStart,
  FootnoteReferenceRun,
  Paragraph,
  TextRun,
  XmlAttributeComponent,
  XmlComponent,
  type ParagraphChild,
} from 'docx';
import type { FootnoteReference, Nodes, Parents, PhrasingContent, Table } from 'mdast';
import type { NoteSite, State } from '../state.ts';

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

/**
 * The bookmark around a note's first reference is written only once a second reference points to it (NOTEREF), which
 * a later paragraph may do: it is written with a placeholder id (negative, one per note) that the packaging step
 * (package/footnotes.ts's resolveNoteMarks) replaces by the bookmark's id, or removes the bookmark when it has none.
 */
const placeholderId = (site: NoteSite): number => -site.footnoteId;

/** The note marks' placeholder ids and their bookmark ids (undefined: no later reference, no bookmark). */
export function noteMarks(sites: ReadonlyMap<string, NoteSite>): Map<number, number | undefined> {
  return new Map([...sites.values()].map((site) => [placeholderId(site), site.bookmarkId]));
}

class FieldAttributes extends XmlAttributeComponent<{ instr: string }> {
  protected override readonly xmlKeys = { instr: 'w:instr' };
}

/** `w:fldSimple`: a field with its result already written (what the reader sees before Word updates it). */
class SimpleFieldWithResult extends XmlComponent {
  constructor(instruction: string, result: TextRun) {
    super('w:fldSimple');
    this.root.push(new FieldAttributes({ instr: instruction }), result);
  }
}

/**
 * A GFM footnote reference: a real Word footnote holding the definition's content, compiled once. A later reference
 * to the same note is Word's cross-reference to it (a NOTEREF field formatted as a note mark, showing its number,
 * a link to the first reference), as Insert > Cross-reference makes, not a copy: n references to a long note once
 * made n copies of it (60 KB of markdown, a 100 MB footnotes part).
 */
export function footnoteReference(state: State, node: FootnoteReference): ParagraphChild[] {
  const id = node.identifier.toLowerCase();
  const definition = state.footnoteDefinitions.get(id);
  // Word has no footnotes inside footnotes; a reference there keeps its label as text.
  if (!definition || state.inFootnote) return [state.run(`[^${node.label ?? node.identifier}]`)];
  const known = state.noteSites.get(id);
  if (known) {
    known.bookmarkId ??= state.anchors.newId();
    const mark = new TextRun({ text: String(known.footnoteId), style: 'FootnoteReference' });
    return [new SimpleFieldWithResult(` NOTEREF ${known.bookmark} \\f \\h `, mark) as unknown as ParagraphChild];
  }
  state.printedFootnotes.add(id);
  const footnoteId = state.nextFootnoteId();
  const site: NoteSite = { footnoteId, bookmark: `_DocwrightNote${String(footnoteId)}`, bookmarkId: undefined };
  state.noteSites.set(id, site);
  flattenTables(state, definition);
  state.isolated({ inFootnote: true }, () => {
    const paragraphs = state.blocks(definition.children).filter((b): b is Paragraph => b instanceof Paragraph);
    state.footnotes[footnoteId] = { children: paragraphs.length > 0 ? paragraphs : [state.paragraph('footnote', [])] };
  });
  return [
    new BookmarkStart(site.bookmark, placeholderId(site)) as unknown as ParagraphChild,
    new FootnoteReferenceRun(footnoteId),
    new BookmarkEnd(placeholderId(site)) as unknown as ParagraphChild,
  ];
}
