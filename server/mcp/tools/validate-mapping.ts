import * as z from 'zod';
import type { MappingRules } from '../../convert/index.ts';
import { ApiError } from '../../errors.ts';
import { BUILTIN_TEMPLATE_ID } from '../../store/store.ts';
import { findMapping, findTemplate } from '../lookup.ts';
import { IdOrName, Rules } from '../schemas.ts';
import { defineTool } from './tool.ts';

export const validateMapping = defineTool({
  name: 'validate_mapping',
  title: 'Check a style mapping against a template',
  description:
    'Check style-mapping rules against a template without converting anything (no quota used): returns a "missing_style: <name>" warning for every style the template lacks or has with the wrong type (e.g. a table style for a paragraph); no warnings means every element gets its style. Give either rules (e.g. { "heading": { "1": "Heading 1" }, "paragraph": "Body Text", "table": { "style": "Table Grid", "header_row": true } }) or an existing mapping (id or name), and the template (id or name; default: the mapping\'s own template, else the built-in one).',
  input: z.strictObject({
    template: IdOrName('template')
      .optional()
      .describe(
        'Template id or name to check against. Default: the mapping\'s template, else the built-in "Docwright Default".',
      ),
    rules: Rules.optional(),
    mapping: IdOrName('mapping')
      .optional()
      .describe('An existing mapping (id or name) whose rules to check, instead of rules.'),
  }),
  output: z.object({
    template: z.object({ id: z.string(), name: z.string() }),
    valid: z.boolean().describe('True when there are no warnings'),
    warnings: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, { services }) {
    if ((args.rules === undefined) === (args.mapping === undefined))
      throw new ApiError('validation_error', 'rules or mapping is required (exactly one of them)');
    const template = args.template === undefined ? undefined : findTemplate(services, args.template);
    const mapping = args.mapping === undefined ? undefined : findMapping(services, args.mapping, template);
    const target = template ?? findTemplate(services, mapping?.template_id ?? BUILTIN_TEMPLATE_ID);
    const rules = (mapping?.rules ?? args.rules) as MappingRules;
    const warnings = await services.mappingWarnings(target.id, rules);
    return { result: { template: { id: target.id, name: target.name }, valid: warnings.length === 0, warnings } };
  },
});
