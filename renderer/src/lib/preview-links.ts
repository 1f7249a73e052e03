/**
 * Internal links in the preview (`#slug` hyperlinks and TOC entries, issue 15): docx-preview renders them as
 * `<a href="#name">` and bookmarks as `<span id="name">` inside the preview's shadow root. Left to the browser, a click
 * would change the app's own hash (its router) and find no target outside the shadow root; instead the preview
 * scrolls to the bookmark itself.
 */
export function followInternalLinks(root: ShadowRoot): () => void {
  const onClick = (event: Event): void => {
    const link = event.target instanceof Element ? event.target.closest('a') : null;
    const href = link?.getAttribute('href') ?? '';
    if (!href.startsWith('#')) return;
    event.preventDefault();
    let name = href.slice(1);
    try {
      name = decodeURIComponent(name);
    } catch {
      // Not percent-encoded: the name as written.
    }
    root.getElementById(name)?.scrollIntoView({ block: 'start' });
  };
  root.addEventListener('click', onClick);
  return () => {
    root.removeEventListener('click', onClick);
  };
}
