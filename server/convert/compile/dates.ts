// A front matter date as a reader sees it: the day in the document's language (`18 April 2023`), while the value
// written goes into the document properties (dcterms:created).

/** The language a date is printed in when neither the front matter nor the template names one Intl knows. */
export const FALLBACK_LANGUAGE = 'en';

/** An ISO 8601 day, optionally with a time (`T` or YAML's space) and a zone: the forms front matter writes. */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ]\s*(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** The calendar day a value names (as written, whatever its time zone), or undefined when it names none. */
function dayOf(value: unknown): { year: number; month: number; day: number; time: boolean } | undefined {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return undefined;
    // A YAML timestamp: the yaml package reads it as UTC.
    return { year: value.getUTCFullYear(), month: value.getUTCMonth() + 1, day: value.getUTCDate(), time: true };
  }
  if (typeof value !== 'string') return undefined;
  const m = ISO_DATE.exec(value.trim());
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // 2023-02-30 is no day: printed as written.
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day)
    return undefined;
  return { year, month, day, time: m[4] !== undefined };
}

/** `language` when Intl formats dates in it, else the fallback (Intl alone would use the machine's locale). */
export function dateLanguage(language: string | undefined): string {
  if (language === undefined) return FALLBACK_LANGUAGE;
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([language])[0] ?? FALLBACK_LANGUAGE;
  } catch {
    return FALLBACK_LANGUAGE;
  }
}

/** A front matter date as printed: the day it names in `language`'s long form, else undefined (print it as written). */
export function printedDate(value: unknown, language: string | undefined): string | undefined {
  const day = dayOf(value);
  if (!day) return undefined;
  const format = new Intl.DateTimeFormat(dateLanguage(language), { dateStyle: 'long', timeZone: 'UTC' });
  return format.format(new Date(Date.UTC(day.year, day.month - 1, day.day, 12)));
}

/**
 * A front matter date as the document properties keep it (W3CDTF, dcterms:created): a day as written, a time as the
 * instant it names (UTC when it names no zone), or undefined when the value names no day.
 */
export function propertyDate(value: unknown): string | undefined {
  const day = dayOf(value);
  if (!day) return undefined;
  if (value instanceof Date) return value.toISOString();
  const text = String(value).trim();
  if (!day.time) return text;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return text;
  // Other forms (YAML's space, no seconds, no zone, +0300) as the instant they name, in the form Word writes.
  const [, year = '', month = '', date = '', hours = '00', minutes = '00', seconds = '00', fraction = '', zone = 'Z'] =
    ISO_DATE.exec(text) ?? [];
  const offset = /^[+-]/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '') || '00'}` : 'Z';
  const instant = new Date(`${year}-${month}-${date}T${hours}:${minutes}:${seconds}${fraction}${offset}`);
  return Number.isNaN(instant.getTime()) ? undefined : instant.toISOString().replace(/\.000Z$/, 'Z');
}

/** A front matter `lang` as a BCP 47 tag (canonical case), or undefined when it is not one. */
export function languageTag(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    return Intl.getCanonicalLocales(value.trim())[0];
  } catch {
    return undefined;
  }
}
