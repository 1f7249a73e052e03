import type { MappingRules } from './mapping.ts';
import { buildDefaultTemplate } from './default-template-build.ts';

/** Name of the built-in template and of its mapping. */
export const DEFAULT_TEMPLATE_NAME = 'Docwright Default';
export const DEFAULT_MAPPING_NAME = 'Docwright Default';

/** The mapping of the built-in template: every key names one of its styles. */
export const DEFAULT_RULES: MappingRules = {
  heading: { '1': 'Heading 1', '2': 'Heading 2', '3': 'Heading 3', '4': 'Heading 4', '5': 'Heading 5', '6': 'Heading 6' },
  paragraph: 'Body Text',
  list_bullet: 'List Bullet',
  list_ordered: 'List Number',
  code_block: 'Code Block',
  blockquote: 'Quote',
  table: { style: 'Docwright Table', header_row: true },
};

let cached: Uint8Array | undefined;

/** The template's bytes, embedded by the build (scripts/build.mjs); absent when running from the sources. */
declare const __DOCWRIGHT_DEFAULT_TEMPLATE__: string | undefined;

/**
 * "Docwright Default": A4 with 2.5 cm margins, a named style for every mapping key, code at 9 pt monospace and page
 * numbers in the footer. The build embeds its bytes (and leaves out the code that lays it out, with the docx
 * library); from the sources it is laid out once per process. The same bytes on every run.
 */
export function defaultTemplate(): Uint8Array {
  if (cached) return cached;
  cached = typeof __DOCWRIGHT_DEFAULT_TEMPLATE__ === 'string' ? new Uint8Array(Buffer.from(__DOCWRIGHT_DEFAULT_TEMPLATE__, 'base64')) : buildDefaultTemplate(DEFAULT_TEMPLATE_NAME);
  return cached;
}
