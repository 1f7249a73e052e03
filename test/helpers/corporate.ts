import type { MappingRules } from '../../server/convert/index.ts';

/** A mapping to the corporate fixture template's styles (test/fixtures/templates/README.md); heading 1 by Word's
 * built-in, lower-case name. */
export const CORPORATE_RULES: MappingRules = {
  heading: { '1': 'heading 1' },
  paragraph: 'Corp Body',
  blockquote: 'Corp Quote',
  code_block: 'Corp Code',
  table: { style: 'Corp Table' },
  list_bullet: 'List Bullet',
  list_ordered: 'List Number',
};
