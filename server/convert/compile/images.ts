import type { Embedded } from '../images/embed.ts';
import { INDENT_STEP, MAX_QUOTE_INDENT_DEPTH, type State } from './state.ts';

/** Embeds an image through the conversion's image source, fitted to the width left at its place. */
export function embedInline(state: State, url: string, alt: string, title: string | null | undefined): Embedded {
  const images = state.images;
  if (!images) return { ok: false, warning: `image_placeholder: ${alt || url}` };
  // Word has no pictures in footnotes of ours (their relationships are the main part's).
  if (state.inFootnote) return { ok: false, warning: `image_placeholder: ${alt || url} (in a footnote)` };
  const indent = INDENT_STEP * (state.listDepth + Math.min(state.quoteDepth, MAX_QUOTE_INDENT_DEPTH));
  const widthTwips = Math.max(INDENT_STEP, state.textWidthTwips - indent);
  return images.embed({ url, alt, title, widthTwips });
}

/** The image's title as a caption paragraph after the one it stands in, when the mapping names a caption style. */
export function imageCaption(state: State, title: string | null | undefined): void {
  const style = state.styles.caption;
  if (!style || !title?.trim()) return;
  const text = title.trim();
  // Made when written, after the image's paragraph took its list number.
  state.after.push(() => state.paragraph('paragraph', [state.run(text)], { style }));
}
