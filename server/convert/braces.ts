// docx writes a list paragraph's numbering as `{reference-instance}` and a picture's relationship as `rId{key}`, then
// replaces every `{key}` it knows in the whole text of the part (its Compiler's numbering and image replacers), the
// user's text included. So the compile gives docx every `{` of the user's text followed by U+FFFF: no key of docx's
// starts with it, so no placeholder forms, and the package step takes it out where docx's text becomes ours.
// Escaping inserts it after every `{`, so taking one out after every `{` gives back exactly the text, whatever it held.

import { stripForbiddenXmlChars } from './xml.ts';

const MARK = '\uFFFF';
const ESCAPED = `{${MARK}`;

/** Text of the user's as given to docx: no `{…}` of it reads as one of docx's placeholders. */
export function escapeBraces(text: string): string {
  return text.includes('{') ? text.replaceAll('{', ESCAPED) : text;
}

/** The user's text as docx is given it: the characters XML forbids dropped, braces escaped. */
export function docxText(text: string): string {
  return escapeBraces(stripForbiddenXmlChars(text));
}

/** Text docx wrote (a value or a whole part) with the user's braces as they were (see escapeBraces). */
export function unescapeBraces(text: string): string {
  return text.includes(ESCAPED) ? text.replaceAll(ESCAPED, '{') : text;
}
