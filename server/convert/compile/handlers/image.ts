import type { ParagraphChild } from 'docx';
import type { Image, ImageReference } from 'mdast';
import type { State } from '../state.ts';

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

/** An image: a placeholder text that names it. */
export function image(state: State, node: Image): ParagraphChild[] {
  return placeholder(state, imageName(node.alt, node.url));
}

/** A reference-style image: a placeholder like any image. */
export function imageReference(state: State, node: ImageReference): ParagraphChild[] {
  const definition = state.definitions.get(node.identifier.toLowerCase());
  return placeholder(state, imageName(node.alt, definition?.url));
}

/** The placeholder text, with a warning naming it: the image itself is not in the document (SPEC.md: Images). */
function placeholder(state: State, name: string): ParagraphChild[] {
  state.warn(`image_placeholder: ${name}`);
  return state.withInline({ italics: true }, () => [state.run(`[Image: ${name}]`)]);
}
