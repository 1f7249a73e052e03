/** Small helpers for the string-level XML work of the packaging step. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for use in XML content or a double-quoted attribute. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

// Tab, LF, CR and the ranges XML 1.0 allows; everything else (C0 controls, lone surrogates, U+FFFE/U+FFFF) is dropped.
const XML_FORBIDDEN = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Removes the characters XML 1.0 forbids, so they are never written. */
export function stripForbiddenXmlChars(text: string): string {
  return text.replace(XML_FORBIDDEN, '');
}

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Decodes a UTF-8 part (dropping a BOM). */
export function decodeUtf8(bytes: Uint8Array): string {
  const s = decoder.decode(bytes);
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

/** Encodes a string as UTF-8. */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Returns the namespace declarations (`xmlns:p="uri"`) of the first start tag named `tag` in `xml`. */
export function rootNamespaces(xml: string, tag: string): Map<string, string> {
  const out = new Map<string, string>();
  const start = xml.indexOf(`<${tag}`);
  if (start < 0) return out;
  const end = xml.indexOf('>', start);
  const head = xml.slice(start, end);
  for (const m of head.matchAll(/xmlns(?::([\w.-]+))?\s*=\s*"([^"]*)"/g)) out.set(m[1] ?? '', m[2] ?? '');
  return out;
}
