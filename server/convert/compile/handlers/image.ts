import type { ParagraphChild } from 'docx';
import type { Image, ImageReference } from 'mdast';
import { imageCaption, embedInline } from '../images.ts';
import type { State } from '../state.ts';
import type { Attributes } from '../../parse/attributes.ts';

/** The name an image placeholder shows: its alt text, else its file name. */
function imageName(alt: string | null | undefined, url: string | undefined): string {
  if (alt && alt.trim()) return alt.trim();
  const path = (url ?? '').split(/[?#]/)[0] ?? '';
  const file = path.split('/').filter(Boolean).pop();
  try {
    return file ? decodeURIComponent(file) : 'image';
  } catch {
    return file ?? 'image';
  }
}

/** An image: embedded when the conversion has an image source (docs/images.md), else a placeholder that names it. */
export function image(state: State, node: Image): ParagraphChild[] {
  return picture(state, node.url, node.alt, node.title, node.data?.attributes);
}

/** A reference-style image: like any image, through its definition. */
export function imageReference(state: State, node: ImageReference): ParagraphChild[] {
  const definition = state.definitions.get(node.identifier.toLowerCase());
  return picture(state, definition?.url, node.alt, definition?.title, node.data?.attributes);
}

function picture(
  state: State,
  url: string | undefined,
  alt: string | null | undefined,
  title: string | null | undefined,
  attributes: Attributes | undefined,
): ParagraphChild[] {
  const name = imageName(alt, url);
  if (!state.images) return placeholder(state, `image_placeholder: ${name}`, name);
  const embedded = embedInline(state, url ?? '', alt ?? '', title, attributes);
  if (!embedded.ok) return placeholder(state, embedded.warning, name);
  imageCaption(state, title);
  return embedded.runs;
}

/** The placeholder text, with a warning naming it: the image itself is not in the document (SPEC.md: Images). */
function placeholder(state: State, warning: string, name: string): ParagraphChild[] {
  state.warn(warning);
  return state.withInline({ italics: true }, () => [state.run(`[Image: ${name}]`)]);
}
