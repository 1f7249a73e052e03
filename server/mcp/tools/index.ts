import { convertMarkdown } from './convert-markdown.ts';
import { getConversion } from './get-conversion.ts';
import { getTemplateStyles } from './get-template-styles.ts';
import { listMappings } from './list-mappings.ts';
import { listTemplates } from './list-templates.ts';
import type { Tool } from './tool.ts';
import { validateMapping } from './validate-mapping.ts';

/** Every tool, in the order an agent meets them. */
export const TOOLS: readonly Tool[] = [
  convertMarkdown,
  listTemplates,
  listMappings,
  getTemplateStyles,
  validateMapping,
  getConversion,
];
