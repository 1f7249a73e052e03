// Images that come with markdown files (dropped together, or a chosen folder): matched to each markdown file by
// their path relative to its folder, as the server matches them (docs/images.md).

/** Extensions of the image files the drop zone takes besides markdown. */
export const IMAGE_EXTENSIONS = ['.png', '.jpg', '.jpeg', '.gif', '.svg'];

/** Content types the server takes for image parts, by extension. */
const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
};

/** Whether a file looks like an image Docwright embeds, by its name. */
export function isImageFile(name: string): boolean {
  const lower = name.toLowerCase();
  return IMAGE_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/** The content type to send an image with (browsers leave .svg and others empty at times). */
export function imageType(name: string): string {
  return TYPES[name.slice(name.lastIndexOf('.') + 1).toLowerCase()] ?? 'application/octet-stream';
}

/** A file's path as chosen: inside a chosen folder (`notes/img/a.png`), else its name. */
function pathOf(file: File): string {
  return file.webkitRelativePath || file.name;
}

function folderOf(path: string): string {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at + 1);
}

/** The images under a markdown file's folder, by their path relative to it. */
export function imagesBeside(markdown: File, images: readonly File[]): Map<string, File> {
  const folder = folderOf(pathOf(markdown));
  const found = new Map<string, File>();
  for (const image of images) {
    const path = pathOf(image);
    if (path.startsWith(folder)) found.set(path.slice(folder.length), image);
  }
  return found;
}

/** The images the markdown names (its text mentions the path, plain or URL-encoded): only those are sent. */
export function referencedImages(markdown: string, images: ReadonlyMap<string, File>): Map<string, File> {
  const used = new Map<string, File>();
  for (const [path, file] of images)
    if (markdown.includes(path) || markdown.includes(encodeURI(path))) used.set(path, file);
  return used;
}

/** The images to send with a markdown text: those it names, typed for the server. */
export function imagesToSend(markdown: string, images: ReadonlyMap<string, File> | undefined): Map<string, Blob> {
  const out = new Map<string, Blob>();
  if (!images) return out;
  for (const [path, file] of referencedImages(markdown, images))
    out.set(path, new Blob([file], { type: imageType(file.name) }));
  return out;
}
