import * as z from 'zod';
import { conversionOut, DOCX_TYPE } from '../../services/present.ts';
import { ApiError } from '../../errors.ts';
import { findConversion } from '../../services/conversions.ts';
import { documentUri } from '../resources.ts';
import { Conversion, DocumentRef } from '../schemas.ts';
import { documentContent } from './convert-markdown.ts';
import { defineTool } from './tool.ts';

export const getConversion = defineTool({
  name: 'get_conversion',
  title: 'Get a conversion',
  description:
    'Fetch the record of an earlier conversion by its conversion_id (as convert_markdown returned it): filename, warnings, stats, template and mapping ids, and where its .docx is. With include_document: true the .docx comes again (embedded up to 1 MB, else a resource link). Never counts against the quota. Conversions are kept for the retention period of the settings (30 days by default).',
  input: z.strictObject({
    conversion_id: z.string().min(1).max(100).describe('The conversion_id (UUID) convert_markdown returned.'),
    include_document: z.boolean().default(false).describe('Also return the .docx (default false).'),
  }),
  output: Conversion.extend({ document: DocumentRef }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, { services, embedLimit }) {
    const record = findConversion(services, args.conversion_id);
    const embed = args.include_document && record.size <= embedLimit;
    let content;
    if (args.include_document) {
      let bytes: Uint8Array;
      try {
        bytes = await services.store.outputBytes(record);
      } catch {
        throw new ApiError('not_found', `The output of conversion ${record.conversion_id} is no longer stored.`);
      }
      content = [documentContent(record, bytes, embed)];
    }
    return {
      result: {
        ...conversionOut(record),
        document: { uri: documentUri(record.conversion_id), mime_type: DOCX_TYPE, size: record.size, embedded: embed },
      },
      ...(content ? { content } : {}),
    };
  },
});
