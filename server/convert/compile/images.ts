import { TWIPS_PER_PX, type Embedded, type ImageSize } from '../images/embed.ts';
import type { Attributes } from '../parse/attributes.ts';
import { INDENT_STEP, MAX_QUOTE_INDENT_DEPTH, type State } from './state.ts';

/** Pixels (96 to the inch) per unit of a length. */
const PX_PER: Record<string, number> = { '': 1, px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, pt: 96 / 72 };
const LENGTH = /^(\d+(?:\.\d*)?|\.\d+)\s*(%|px|cm|mm|in|pt)?$/i;

/**
 * The size an image's attributes ask for, in pixels: `width` and `height` in px (also bare numbers), cm, mm, in, pt,
 * and a width in % of `availablePx`. Anything else is warned (attribute_ignored) and left out.
 */
export function imageSize(state: State, attributes: Attributes | undefined, availablePx: number): ImageSize {
  const size: ImageSize = {};
  if (!attributes) return size;
  for (const [key, value] of attributes.pairs) {
    const match = LENGTH.exec(value.trim());
    const unit = (match?.[2] ?? '').toLowerCase();
    const number = Number(match?.[1]);
    const px = unit === '%' ? (key === 'width' ? (availablePx * number) / 100 : NaN) : number * (PX_PER[unit] ?? NaN);
    if ((key === 'width' || key === 'height') && Number.isFinite(px) && px > 0) size[key] = px;
    else state.warn(`attribute_ignored: ${key}=${value} on an image`);
  }
  // A figure's `#fig:` label numbers its caption (captions.ts).
  if (attributes.id !== undefined && !state.inFigure) state.warn(`attribute_ignored: #${attributes.id} on an image`);
  for (const name of attributes.classes) state.warn(`attribute_ignored: .${name} on an image`);
  return size;
}

/** Embeds an image through the conversion's image source, fitted to the width left at its place. */
export function embedInline(
  state: State,
  url: string,
  alt: string,
  title: string | null | undefined,
  attributes?: Attributes,
): Embedded {
  const images = state.images;
  if (!images) return { ok: false, warning: `image_placeholder: ${alt || url}` };
  // Word has no pictures in footnotes of ours (their relationships are the main part's).
  if (state.inFootnote) return { ok: false, warning: `image_placeholder: ${alt || url} (in a footnote)` };
  const indent = INDENT_STEP * (state.listDepth + Math.min(state.quoteDepth, MAX_QUOTE_INDENT_DEPTH));
  const widthTwips = Math.max(INDENT_STEP, state.textWidthTwips - indent);
  const size = imageSize(state, attributes, Math.floor(widthTwips / TWIPS_PER_PX));
  return images.embed({ url, alt, title, widthTwips, size });
}

/** The image's title as a caption paragraph after the one it stands in, when the mapping names a caption style. */
export function imageCaption(state: State, title: string | null | undefined): void {
  const style = state.styles.caption;
  // A figure's caption is its numbered one (captions.ts), written by its paragraph.
  if (!style || !title?.trim() || state.inFigure) return;
  const text = title.trim();
  // Made when written, after the image's paragraph took its list number.
  state.after.push(() => state.paragraph('paragraph', [state.run(text)], { style }));
}
