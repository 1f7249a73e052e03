import type { FileChild, IParagraphOptions } from 'docx';
import type { Heading } from 'mdast';
import type { HeadingLevel } from '../../mapping.ts';
import { chapterStart } from '../captions.ts';
import type { State } from '../state.ts';

/** Font sizes (half-points) of headings when the template has no mapped heading style. */
const FALLBACK_SIZES = [32, 28, 26, 24, 22, 22];

/** Word's outline level of body text: a heading at this level is left out of tables of contents and the outline. */
const BODY_TEXT_LEVEL = 9;

/**
 * A heading in its mapped style; without one, bold text sized by level that Word still sees as a heading level. The
 * first heading that repeats the printed title prints nothing.
 */
export function heading(state: State, node: Heading): FileChild[] {
  // The front matter's printed title says it already, and holds its bookmark (front-matter.ts).
  if (node === state.titleHeading) return [];
  const level = String(node.depth) as HeadingLevel;
  const style = state.styles.heading[level];
  const { unnumbered, unlisted } = classes(state, node);
  // The heading's bookmark (its GitHub slug or `{#id}`, see anchors.ts) is what `#slug` links and the TOC jump to.
  if (style) {
    // Counted as Word's list on the heading styles will number it (package/heading-numbering.ts), for the TOC.
    if (!unnumbered) state.headingNumbers.count(level, state.anchors.nameOf(node));
    const options: IParagraphOptions = {
      style,
      // numId 0: no number, whatever the style's numbering (none: the same look).
      ...(unnumbered ? { numbering: false } : {}),
      ...(unlisted ? { outlineLevel: BODY_TEXT_LEVEL } : {}),
    };
    const runs = [...state.anchors.bookmark(node, state.inlines(node.children)), ...chapterStart(state, node)];
    return [state.paragraph('heading', runs, options)];
  }
  const size = FALLBACK_SIZES[node.depth - 1] ?? 22;
  const children = [
    ...state.anchors.bookmark(
      node,
      state.withInline({ bold: true, size }, () => state.inlines(node.children)),
    ),
    ...chapterStart(state, node),
  ];
  return [
    state.paragraph('heading', children, {
      outlineLevel: unlisted ? BODY_TEXT_LEVEL : node.depth - 1,
      keepNext: true,
      keepLines: true,
      spacing: { before: 240, after: 120 },
      run: { size, bold: true },
    }),
  ];
}

/** The `.unnumbered` and `.unlisted` classes of a heading's `{…}` block; any other class or key is warned. */
function classes(state: State, node: Heading): { unnumbered: boolean; unlisted: boolean } {
  const attributes = node.data?.attributes;
  // The heading over the bibliography is unnumbered, as pandoc marks its references heading.
  // Only where the headings are numbered (the front matter is read by now): otherwise it is written as before.
  const bibliography = node === state.bibliographyHeading && state.headingNumbers.asked;
  if (!attributes) return { unnumbered: bibliography, unlisted: false };
  for (const name of attributes.classes)
    if (name !== 'unnumbered' && name !== 'unlisted') state.warn(`attribute_ignored: .${name} on a heading`);
  for (const [key] of attributes.pairs) state.warn(`attribute_ignored: ${key} on a heading`);
  return {
    unnumbered: bibliography || attributes.classes.includes('unnumbered'),
    unlisted: attributes.classes.includes('unlisted'),
  };
}
