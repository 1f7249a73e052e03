/** Small helpers for XML text: characters XML forbids, UTF-8 in and out. */

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

/** A part's text: as it is, or its UTF-8 bytes decoded. */
export function textOf(data: Uint8Array | string): string {
  return typeof data === 'string' ? data : decodeUtf8(data);
}

/** Encodes a string as UTF-8. */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}
