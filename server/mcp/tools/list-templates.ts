import * as z from 'zod';
import { templateOut } from '../../services/present.ts';
import { TemplateSummary } from '../schemas.ts';
import { defineTool } from './tool.ts';

export const listTemplates = defineTool({
  name: 'list_templates',
  title: 'List Word templates',
  description:
    'List the Word templates the user has stored in Docwright (the built-in "Docwright Default" first), each with its id, name, description, version and its style mappings (id and name). Start here to choose the template and mapping for convert_markdown.',
  input: z.strictObject({}),
  output: z.object({
    templates: z.array(TemplateSummary),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_args, { services }) {
    const store = services.store;
    return {
      result: {
        templates: store.listTemplates().map((t) => templateOut(t, store.listMappings(t.id))),
      },
    };
  },
});
