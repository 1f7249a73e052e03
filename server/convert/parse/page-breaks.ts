import type { Element } from 'hast';
import type { Node, Parents, Root } from 'mdast';

// Page breaks that markdown writers use where markdown has none (issue 33, item 4):
// - a paragraph that is exactly `\newpage` or `\pagebreak` (LaTeX's commands, which pandoc keeps for LaTeX output
//   only and drops from a Word document);
// - HTML whose CSS asks for a page break: `page-break-before: always` / `break-before: page` before the element,
//   `page-break-after: always` / `break-after: page` after it (a browser's print and every HTML-to-PDF tool honour
//   them; `<div style="page-break-after: always"></div>` is the usual spelling in markdown).
// Each becomes a `pageBreak` node, which the compiler writes as `---` is written by default.

/** A page break asked for by the writer (not markdown's `---`, whose meaning is the mapping's). */
export interface PageBreak extends Node {
  type: 'pageBreak';
}

declare module 'mdast' {
  interface RootContentMap {
    pageBreak: PageBreak;
  }
  interface BlockContentMap {
    pageBreak: PageBreak;
  }
}

/** The nodes whose children may be paragraphs. */
const CONTAINERS = new Set(['blockquote', 'list', 'listItem', 'footnoteDefinition']);

/** The LaTeX commands read as a page break when a paragraph holds nothing else. */
const TEX_PAGE_BREAKS = new Set(['\\newpage', '\\pagebreak']);

/**
 * Replaces each paragraph that is exactly `\newpage` or `\pagebreak` (white space around it aside) with a page break.
 * `markdown` is the source the tree was parsed from: an escaped backslash (`\\newpage`) reads as the same text, and
 * stays text. A note has no pages of its own: one there is removed, and its line returned for a warning.
 */
export function texPageBreaks(tree: Root, markdown: string): number[] {
  const dropped: number[] = [];
  if (!markdown.includes('\\newpage') && !markdown.includes('\\pagebreak')) return dropped;
  const stack: { parent: Parents; inNote: boolean }[] = [{ parent: tree, inNote: false }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { parent, inNote } = entry;
    const children = parent.children as Node[];
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node & { children?: Node[] };
      if (child.type === 'paragraph') {
        if (!isTexPageBreak(child, markdown)) continue;
        if (inNote) {
          dropped.push(child.position?.start.line ?? 0);
          children.splice(i--, 1);
        } else {
          const pageBreak: PageBreak = { type: 'pageBreak', position: child.position };
          children[i] = pageBreak;
        }
      } else if (CONTAINERS.has(child.type))
        stack.push({ parent: child as Parents, inNote: inNote || child.type === 'footnoteDefinition' });
    }
  }
  return dropped;
}

function isTexPageBreak(paragraph: Node & { children?: Node[] }, markdown: string): boolean {
  const only = paragraph.children?.length === 1 ? (paragraph.children[0] as Node & { value?: string }) : undefined;
  if (only?.type !== 'text' || !TEX_PAGE_BREAKS.has((only.value ?? '').trim())) return false;
  const from = only.position?.start.offset;
  const to = only.position?.end.offset;
  // Written as it reads: no escape or character reference in the source.
  return from !== undefined && to !== undefined && markdown.slice(from, to).trim() === only.value?.trim();
}

const BREAK_BEFORE =
  /(?:^|;)\s*(?:page-break-before\s*:\s*always|break-before\s*:\s*page)\s*(?:!important\s*)?(?:;|$)/i;
const BREAK_AFTER = /(?:^|;)\s*(?:page-break-after\s*:\s*always|break-after\s*:\s*page)\s*(?:!important\s*)?(?:;|$)/i;

/** Where an HTML element's inline CSS asks for page breaks: before it, after it. */
export function cssPageBreaks(element: Element): { before: boolean; after: boolean } {
  const style = element.properties.style;
  const css = typeof style === 'string' ? style : '';
  return { before: BREAK_BEFORE.test(css), after: BREAK_AFTER.test(css) };
}
