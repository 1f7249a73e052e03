/**
 * The `X-Warnings` header of a binary conversion (SPEC.md: a JSON array of warning strings), bounded: at most
 * WARNINGS_HEADER.count warnings, each at most WARNINGS_HEADER.each characters, the whole under
 * WARNINGS_HEADER.bytes. When some are left out, the array ends with `truncated: <n> more warnings; …` and
 * `X-Warnings-Total` gives the full count; the full list stays in the record (docs/api.md).
 */
export const WARNINGS_HEADER = { count: 20, each: 200, bytes: 4096 } as const;

/** JSON as an HTTP header can carry it: ASCII only (everything past U+007E as a \u escape). */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** One warning cut to the per-warning bound (never inside a surrogate pair). */
function shorten(warning: string): string {
  const chars = Array.from(warning);
  return chars.length <= WARNINGS_HEADER.each ? warning : `${chars.slice(0, WARNINGS_HEADER.each - 1).join('')}…`;
}

/** The header values for a conversion's warnings: `X-Warnings` and, when the list was cut, `X-Warnings-Total`. */
export function warningsHeaders(warnings: readonly string[], conversionId: string): Record<string, string> {
  if (warnings.length === 0) return {};
  const shown: string[] = [];
  const tail = (left: number) =>
    `truncated: ${left} more warning${left === 1 ? '' : 's'}; the full list is in GET /api/v1/conversions/${conversionId}`;
  for (const warning of warnings.slice(0, WARNINGS_HEADER.count)) {
    const next = [...shown, shorten(warning)];
    const left = warnings.length - next.length;
    if (asciiJson(left > 0 ? [...next, tail(left)] : next).length > WARNINGS_HEADER.bytes) break;
    shown.push(shorten(warning));
  }
  const left = warnings.length - shown.length;
  if (left === 0 && shown.every((w, i) => w === warnings[i])) return { 'X-Warnings': asciiJson(shown) };
  return {
    'X-Warnings': asciiJson(left > 0 ? [...shown, tail(left)] : shown),
    'X-Warnings-Total': String(warnings.length),
  };
}
