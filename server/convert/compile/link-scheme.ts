/**
 * Which link targets may become hyperlinks (issue 12): `http:`, `https:`, `mailto:` and internal `#anchor`s.
 * Anything else (`javascript:`, `vbscript:`, `data:`, `file:`, unknown schemes, and relative paths, which Word
 * would resolve against wherever the document is opened) stays text, with the warning `unsafe_link: <scheme>`.
 * One function for every place a link is made: markdown links here, raw HTML `<a href>` too.
 */

/** Schemes a hyperlink may use. */
export const LINK_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'mailto']);

/** The detail of the `unsafe_link` warning for a target without a scheme (a relative path or `//host/…`). */
export const RELATIVE = 'relative';

/**
 * Why `url` must not become a hyperlink: its scheme in lower case without the colon (`javascript`, `file`), or
 * `relative`; undefined when it may (an allowed scheme, an internal `#anchor`, or an empty target). The URL is
 * read as WHATWG URL parsing reads it (browsers and Word alike ignore case, tabs, newlines and leading spaces or
 * control characters: `JaVa\tScRiPt:` is `javascript:`).
 */
export function unsafeLinkScheme(url: string): string | undefined {
  // Leading and trailing C0 controls and spaces are dropped, tabs and newlines anywhere removed (URL standard).
  const target = url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  if (target === '' || target.startsWith('#')) return undefined;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(target)?.[1]?.toLowerCase();
  if (scheme === undefined) return RELATIVE;
  return LINK_SCHEMES.has(scheme) ? undefined : scheme;
}
