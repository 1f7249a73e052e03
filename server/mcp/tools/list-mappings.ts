import * as z from 'zod';
import { mappingOut } from '../../services/present.ts';
import { findTemplate } from '../lookup.ts';
import { IdOrName, Mapping } from '../schemas.ts';
import { defineTool } from './tool.ts';

export const listMappings = defineTool({
  name: 'list_mappings',
  title: 'List style mappings',
  description:
    'List style mappings, optionally only those of one template. A mapping\'s rules give, per markdown element (heading levels "1"–"6", paragraph, list_bullet, list_ordered, code_block, blockquote, table, footnote_text, definition_term, definition, inline_code, link, strong, emphasis; title, subtitle, author, date for the title block from front matter), the template style it gets, and the thematic_break, task_list, code_highlighting, math and comments options. Pass a mapping\'s id or name to convert_markdown.',
  input: z.strictObject({
    template: IdOrName('template').optional().describe('Only the mappings of this template (id or name).'),
  }),
  output: z.object({ mappings: z.array(Mapping) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, { services }) {
    const templateId = args.template === undefined ? undefined : findTemplate(services, args.template).id;
    return { result: { mappings: services.store.listMappings(templateId).map(mappingOut) } };
  },
});
