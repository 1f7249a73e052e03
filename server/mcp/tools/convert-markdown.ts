import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { conversionOut, DOCX_TYPE } from '../../services/present.ts';
import { outputFilename, stemOf } from '../../services.ts';
import { matchedCount } from '../../convert/auto-mapping.ts';
import { BIBLIOGRAPHY_FORMATS, CITATION_LIMITS } from '../../convert/citations/index.ts';
import { templateFromFile } from '../../services/templates.ts';
import { TEMPLATE_LIMIT } from '../../limits.ts';
import { PathChangedError } from '../../confined/open.ts';
import { ApiError } from '../../errors.ts';
import { inputFile, templateFile } from '../input.ts';
import { resolvePair } from '../lookup.ts';
import { outputTarget, writeOutput } from '../output.ts';
import { documentUri } from '../resources.ts';
import { Conversion, DocumentRef, IdOrName } from '../schemas.ts';
import { defineTool } from './tool.ts';

/** Largest markdown accepted: the REST API's limit (10 MiB). */
export const MARKDOWN_LIMIT = 10 * 1024 * 1024;

/** The .docx as MCP content: embedded (base64) up to the limit, else a link to its resource. */
export function documentContent(
  record: { conversion_id: string; filename: string },
  docx: Uint8Array,
  embed: boolean,
): ContentBlock {
  const uri = documentUri(record.conversion_id);
  if (embed)
    return {
      type: 'resource',
      resource: {
        uri,
        mimeType: DOCX_TYPE,
        blob: Buffer.from(docx.buffer, docx.byteOffset, docx.byteLength).toString('base64'),
      },
    };
  return {
    type: 'resource_link',
    uri,
    name: record.filename,
    mimeType: DOCX_TYPE,
    description: `The .docx (${docx.byteLength} bytes); read this resource to get it.`,
  };
}

export const convertMarkdown = defineTool({
  name: 'convert_markdown',
  title: 'Convert markdown to a Word document',
  description: [
    "Convert markdown into a Word document (.docx) laid out by one of the user's Word templates and a style mapping (which template style each markdown element gets).",
    'Without template and mapping it uses the built-in "Docwright Default" template and mapping. Give template and/or mapping by id or by name as list_templates shows them; a template alone uses its first mapping, a mapping alone its own template.',
    'Each call counts as one conversion against the monthly quota (Solo plan: 20 a month); when it is used up the tool fails with rate_limit_exceeded and the reset date.',
    'Returns the conversion record (conversion_id, filename, warnings such as "missing_style: <name>", stats) and the .docx: embedded as a resource (base64) up to 1 MB, else a resource link (docwright://conversions/<id>/document) to read.',
    'output_path also writes the file to disk, but only inside the one folder the user allowed in the settings (mcp_output_dir); otherwise the call is refused before converting.',
    'input_path converts a markdown file from that same allowed folder instead of markdown text, and embeds the PNG, JPEG, GIF and SVG images it refers to from its own folder (never from outside it, never from the web).',
    'template_path lays the document out with a .docx or .dotx template from that same allowed folder: it is stored as an upload is (list_templates shows it, named after the file; the same file again reuses it) with the mapping an upload gets, its styles matched by name.',
    "Citations ([@key], [@key, p. 33], [-@key], @key: pandoc's syntax) are formatted from a bibliography: the bibliography argument (BibTeX, CSL JSON or YAML text), else the front matter's bibliography file beside an input_path file, or its references; in APA unless csl names vancouver or harvard1 (or gives a CSL style's XML); the bibliography is printed at a ::: {#refs} div or at the end.",
    'Markdown: headings, paragraphs, bold/italic/strikethrough, lists (3 levels), code blocks, inline code, blockquotes, tables, links, footnotes, YAML front matter (document title, author…); "---" is a page break; ^superscript^ and inline notes ^[…] (as pandoc writes them), and with dialect pandoc ~subscript~; images in markdown text become a text placeholder.',
  ].join(' '),
  input: z.strictObject({
    markdown: z
      .string()
      .min(1)
      .max(MARKDOWN_LIMIT)
      .optional()
      .describe(
        'The markdown text to convert (CommonMark + GitHub tables, task lists, footnotes; at most 10 MiB). Give this or input_path.',
      ),
    input_path: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'A markdown file to convert instead of markdown: a path inside the folder the user allowed (setting mcp_output_dir), absolute or relative to it. Its images are embedded from its folder.',
      ),
    template: IdOrName('template')
      .optional()
      .describe(
        'Template id or name (list_templates). Default: the mapping\'s template, else the built-in "Docwright Default".',
      ),
    mapping: IdOrName('mapping')
      .optional()
      .describe("Style mapping id or name (list_mappings). Default: the template's first mapping."),
    template_path: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'A Word template (.docx, .dotx) to use instead of template: a path inside the folder the user allowed (setting mcp_output_dir), absolute or relative to it. Stored as an upload is, with its styles matched by name (no mapping to give).',
      ),
    filename: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Output file name without extension; default: the name of the input_path file, else "document".'),
    number_sections: z
      .boolean()
      .optional()
      .describe(
        "Number the headings 1, 1.1, 1.1.1 (as pandoc's --number-sections) with a multilevel list on the template's heading styles; a template whose heading styles number themselves keeps its own. The front matter's number_sections wins.",
      ),
    output_path: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'Also save the .docx here: a file path or a folder (then the file is named after filename), absolute or relative to the allowed folder. Only inside the folder the user allowed (setting mcp_output_dir); refused otherwise.',
      ),
    bibliography: z
      .string()
      .min(1)
      .max(CITATION_LIMITS.bibliographyChars)
      .optional()
      .describe(
        "The sources the markdown's citations ([@key]) are formatted from: BibTeX/BibLaTeX, CSL JSON or CSL YAML text (at most 4 MiB, 10,000 entries). Default: the files the front matter's bibliography names beside an input_path file, and its references.",
      ),
    bibliography_format: z
      .enum(BIBLIOGRAPHY_FORMATS)
      .optional()
      .describe('The format of bibliography: bibtex, csl-json or csl-yaml; default: told from its text.'),
    csl: z
      .string()
      .min(1)
      .max(CITATION_LIMITS.styleChars)
      .optional()
      .describe(
        "The citation style: apa (default), vancouver (numeric) or harvard1, or a CSL style's XML. Default: the front matter's csl, else apa.",
      ),
    overwrite: z
      .boolean()
      .default(false)
      .describe('With output_path: replace an existing file (default false: refuse).'),
    dialect: z
      .enum(['gfm', 'pandoc'])
      .optional()
      .describe(
        "Markdown dialect: gfm (GitHub's, the default) or pandoc (also H~2~O subscript, where gfm reads ~2~ as strikethrough). Wins over the front matter's markdown: key.",
      ),
  }),
  output: Conversion.extend({
    template_name: z.string(),
    mapping_name: z.string(),
    mapping_matched: z
      .object({ matched: z.number().int(), of: z.number().int() })
      .describe('How many of the elements a mapping can style (of) the mapping names a style for (matched)'),
    document: DocumentRef,
    saved_to: z.string().nullable().describe('Absolute path of the file written for output_path, else null'),
    save_error: z
      .string()
      .optional()
      .describe('Why output_path could not be written (the conversion itself succeeded and counted)'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, { services, embedLimit }) {
    if (args.markdown === undefined && args.input_path === undefined)
      throw new ApiError(
        'validation_error',
        'markdown is required (or input_path: a markdown file in the allowed folder)',
      );
    if (args.markdown !== undefined && args.input_path !== undefined)
      throw new ApiError('validation_error', 'markdown: give either markdown or input_path, not both');
    if (args.template_path !== undefined && (args.template !== undefined || args.mapping !== undefined))
      throw new ApiError(
        'validation_error',
        'template_path: give either template_path (its styles matched by name) or template and mapping, not both',
      );
    const { dataDir } = services.store;
    const { template, mapping } =
      args.template_path === undefined
        ? resolvePair(services, args.template, args.mapping)
        : await templateFromFile(
            services,
            await templateFile(services.store.settings().mcp_output_dir, dataDir, args.template_path, TEMPLATE_LIMIT),
            args.template_path.split(/[\\/]/).pop() ?? args.template_path,
          );
    // A file: read now (refused before anything is counted), its images from its own folder.
    const source =
      args.input_path === undefined
        ? undefined
        : await inputFile(services.store.settings().mcp_output_dir, dataDir, args.input_path, MARKDOWN_LIMIT);
    const markdown = source?.markdown ?? args.markdown ?? '';
    // A file without `filename` names the document after itself (notes/report.md → report.docx).
    const filename = args.filename ?? stemOf(args.input_path);
    const target =
      args.output_path === undefined
        ? undefined
        : outputTarget(
            services.store.settings().mcp_output_dir,
            dataDir,
            args.output_path,
            outputFilename(filename),
            args.overwrite,
          );
    const { record, docx } = await services.convert({
      markdown,
      ...(source ? { images: { folder: source.folder, exclude: dataDir } } : {}),
      template_id: template.id,
      mapping_id: mapping.id,
      ...(filename !== undefined ? { filename } : {}),
      ...(args.number_sections ? { number_sections: true } : {}),
      ...(args.dialect ? { dialect: args.dialect } : {}),
      ...(args.bibliography !== undefined ? { bibliography: args.bibliography } : {}),
      ...(args.bibliography_format !== undefined ? { bibliography_format: args.bibliography_format } : {}),
      ...(args.csl !== undefined ? { csl: args.csl } : {}),
      channel: 'mcp',
    });
    let savedTo: string | null = null;
    let saveError: string | undefined;
    if (target !== undefined) {
      try {
        await writeOutput(target, docx, args.overwrite);
        savedTo = target;
      } catch (error) {
        saveError =
          error instanceof PathChangedError
            ? `could not write ${target}: a folder on its way was replaced since it was checked`
            : `could not write ${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      }
    }
    // A file the agent had written needs no second copy in its context: a link then, as for a large document.
    const embed = docx.byteLength <= embedLimit && savedTo === null;
    return {
      result: {
        ...conversionOut(record),
        template_name: template.name,
        mapping_name: mapping.name,
        mapping_matched: matchedCount(mapping.rules),
        document: {
          uri: documentUri(record.conversion_id),
          mime_type: DOCX_TYPE,
          size: docx.byteLength,
          embedded: embed,
        },
        saved_to: savedTo,
        ...(saveError !== undefined ? { save_error: saveError } : {}),
      },
      content: [documentContent(record, docx, embed)],
    };
  },
});
