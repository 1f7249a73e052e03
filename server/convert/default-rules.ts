// The built-in template's and mapping's names and rules, apart from the template itself (default-template.ts, which
// lays it out with docx): the store and the policy seed read these at every start, the template's bytes only when a
// data folder is new or the built-in template is asked for, so a server's thread loads docx only then.
import type { MappingRules } from './mapping.ts';

/** Name of the built-in template and of its mapping. */
export const DEFAULT_TEMPLATE_NAME = 'Docwright Default';
export const DEFAULT_MAPPING_NAME = 'Docwright Default';

/** The mapping of the built-in template: every key names one of its styles. */
export const DEFAULT_RULES: MappingRules = {
  heading: {
    '1': 'Heading 1',
    '2': 'Heading 2',
    '3': 'Heading 3',
    '4': 'Heading 4',
    '5': 'Heading 5',
    '6': 'Heading 6',
  },
  paragraph: 'Body Text',
  list_bullet: 'List Bullet',
  list_ordered: 'List Number',
  code_block: 'Code Block',
  blockquote: 'Quote',
  table: { style: 'Docwright Table', header_row: true },
  footnote_text: 'footnote text',
  inline_code: 'Verbatim Char',
  link: 'Hyperlink',
  strong: 'Strong',
  emphasis: 'Emphasis',
  title: 'Title',
  subtitle: 'Subtitle',
  author: 'Author',
  date: 'Date',
  abstract: 'Abstract',
  caption: 'Caption',
  definition_term: 'Definition Term',
  definition: 'Definition',
};
