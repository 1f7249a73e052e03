import * as z from 'zod';
import { findTemplate } from '../lookup.ts';
import { IdOrName } from '../schemas.ts';
import { defineTool } from './tool.ts';

export const getTemplateStyles = defineTool({
  name: 'get_template_styles',
  title: "List a template's styles",
  description:
    'List the styles of a Word template: name (as Word shows it; the names mapping rules use), style id, and type (paragraph, character, table or numbering). Paragraph styles suit headings, paragraphs, lists, code blocks, quotes and footnote text; character styles suit inline code, links, strong and emphasis; table styles suit tables.',
  input: z.strictObject({ template: IdOrName('template') }),
  output: z.object({
    template: z.object({ id: z.string(), name: z.string(), version: z.int() }),
    styles: z.array(
      z.object({ name: z.string(), id: z.string(), type: z.enum(['paragraph', 'character', 'table', 'numbering']) }),
    ),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, { services }) {
    const record = findTemplate(services, args.template);
    const template = await services.template(record);
    return {
      result: {
        template: { id: record.id, name: record.name, version: record.version },
        styles: template.styles.map(({ name, id, type }) => ({ name, id, type })),
      },
    };
  },
});
