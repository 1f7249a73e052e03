// Input that is not text: every surface decodes bytes as UTF-8 (invalid sequences become U+FFFD) before the engine
// sees them, so the engine can tell binary data and non-UTF-8 files from the string alone, and warn once for all.

/** Control characters that do not belong in text (tab, line feed, vertical tab, form feed and carriage return do). */
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f]/g;
const REPLACEMENT = /\uFFFD/g;

/**
 * `not_text` when the markdown looks like binary data (a NUL, or control characters with, together with the
 * characters that were not UTF-8, more than 30 % of it), else `invalid_utf8` when bytes were replaced by U+FFFD while
 * decoding; none for text (a stray control character in text is XML's to drop, not a sign of a wrong file).
 */
export function notTextWarnings(markdown: string): string[] {
  const controls = markdown.match(CONTROL)?.length ?? 0;
  const replaced = markdown.match(REPLACEMENT)?.length ?? 0;
  if (markdown.includes('\u0000') || (controls > 0 && controls + replaced > markdown.length * 0.3))
    return [
      `not_text: the input looks like binary data, not text (${controls} control character${controls === 1 ? '' : 's'}); was it the right file?`,
    ];
  if (replaced > 0)
    return [
      `invalid_utf8: ${replaced} character${replaced === 1 ? ' was' : 's were'} not valid UTF-8 and ${replaced === 1 ? 'was' : 'were'} replaced by \u{FFFD} (save the file as UTF-8)`,
    ];
  return [];
}
