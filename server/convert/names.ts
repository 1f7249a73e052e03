/**
 * The one rule for names a user gives (output filenames, template, mapping and API-key names; template
 * descriptions): any Unicode text, but no control character (C0, DEL, C1) and no unpaired surrogate, which no
 * filename, header or terminal can carry. JSON schemas use the pattern, other channels `nameProblem`. It lives in the
 * engine because the engine checks mapping rules' style names with it (mapping.ts), and the engine imports nothing of
 * the server around it; the server's surfaces import it from here.
 */

/** JSON-schema pattern of a name (compiled with the `u` flag, so a surrogate range matches only unpaired ones). */
export const NAME_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f\\ud800-\\udfff]*$';

/** The same for multi-line text (a description): tab, line feed and carriage return are allowed. */
export const TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\ud800-\\udfff]*$';

/** What a refused name is told; `field` is the field's name. */
export function nameRule(field: string): string {
  return `${field} must not contain control characters or unpaired surrogates (invalid UTF-16)`;
}

const NAME = new RegExp(NAME_PATTERN, 'u');
const TEXT = new RegExp(TEXT_PATTERN, 'u');

/** Why `value` is not an acceptable name (or multi-line text), or undefined when it is. */
export function nameProblem(field: string, value: string, multiline = false): string | undefined {
  return (multiline ? TEXT : NAME).test(value) ? undefined : nameRule(field);
}

/** The text with every unpaired surrogate replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
export function wellFormed(value: string): string {
  return value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}
