import type { FileChild } from 'docx';
import type { Heading } from 'mdast';
import type { HeadingLevel } from '../../mapping.ts';
import type { State } from '../state.ts';

/** Font sizes (half-points) of headings when the template has no mapped heading style. */
const FALLBACK_SIZES = [32, 28, 26, 24, 22, 22];

/**
 * A heading in its mapped style; without one, bold text sized by level that Word still sees as a heading level. The
 * first heading that repeats the printed title prints nothing.
 */
export function heading(state: State, node: Heading): FileChild[] {
  // The front matter's printed title says it already, and holds its bookmark (front-matter.ts).
  if (node === state.titleHeading) return [];
  const level = String(node.depth) as HeadingLevel;
  const style = state.styles.heading[level];
  // The heading's bookmark (its GitHub slug, see anchors.ts) is what `#slug` links and the TOC jump to.
  if (style) return [state.paragraph('heading', state.anchors.bookmark(node, state.inlines(node.children)), { style })];
  const size = FALLBACK_SIZES[node.depth - 1] ?? 22;
  const children = state.anchors.bookmark(
    node,
    state.withInline({ bold: true, size }, () => state.inlines(node.children)),
  );
  return [
    state.paragraph('heading', children, {
      outlineLevel: node.depth - 1,
      keepNext: true,
      keepLines: true,
      spacing: { before: 240, after: 120 },
      run: { size, bold: true },
    }),
  ];
}
