import { ConvertInputError, outputLimit } from './errors.ts';
import { toDocx, type CompiledDocument } from './compile/index.ts';
import type { ConversionStats } from './parse/stats.ts';
import { DEFAULT_RULES } from './default-template.ts';
import { defaultTemplateRead } from './default-template-read.ts';
import { elementOptions } from './element-options.ts';
import { codeHighlighting } from './highlight/index.ts';
import { hasMath } from './math/has-math.ts';
import { checkRules, resolveStyles, type MappingRules } from './mapping.ts';
import { ImageEmbedder } from './images/embed.ts';
import type { ImageSource } from './images/source.ts';
import { renderHere, type Renderer } from './images/render.ts';
import {
  packageDocument,
  templateCommentBase,
  templateLanguage,
  templateNumberedStyles,
  templateTitleFields,
} from './package/index.ts';
import { isDialect, parseMarkdown, warnLeftoverSyntax, type Dialect } from './parse/index.ts';
import { prepareCitations, type BibliographyInput } from './citations/index.ts';
import { notTextWarnings } from './parse/not-text.ts';
import { readTemplate, type Template } from './template/read.ts';
import { detailsOf, WarningList, type WarningDetail } from './warning-list.ts';
import { rememberXmlRegexps } from './xml-regexps.ts';

export { ConvertInputError, OutputTooLargeError, OUTPUT_FACTOR } from './errors.ts';
export type { ConversionStats } from './parse/stats.ts';
export { DEFAULT_MAPPING_NAME, DEFAULT_RULES, DEFAULT_TEMPLATE_NAME, defaultTemplate } from './default-template.ts';
export { defaultTemplateRead } from './default-template-read.ts';
export { checkRules, resolveStyles, type MappingRules } from './mapping.ts';
export { AUTO_MAPPING_NAME, matchedCount, suggestRules } from './auto-mapping.ts';
export { readTemplate, sanitizedBytes, TEMPLATE_CAPS, type Template } from './template/read.ts';
export type { TemplateStyle } from './template/styles.ts';
export { detailsOf, type WarningDetail } from './warning-list.ts';
export { filesSource, type ImageInput, type ImageRead, type ImageSource } from './images/source.ts';
export { IMAGE_LIMITS } from './images/limits.ts';
export { DIALECTS, isDialect, type Dialect } from './parse/index.ts';
export {
  BIBLIOGRAPHY_FORMATS,
  BUNDLED_STYLES,
  CITATION_LIMITS,
  type BibliographyFormat,
  type BibliographyInput,
} from './citations/index.ts';
export {
  renderHere,
  renderOptions,
  type Renderer,
  type RenderFailure,
  type RenderRequest,
  type RenderResult,
} from './images/render.ts';

export interface ConvertInput {
  /** Markdown text (CommonMark + GFM, optional YAML front matter). */
  markdown: string;
  /** The template, as .docx bytes or already read; the built-in default when absent. */
  template?: Uint8Array | Template;
  /** Mapping rules (or a whole mapping object holding `rules`); the built-in default mapping when absent. */
  mapping?: MappingRules | { rules: MappingRules };
  /** Creation time written into the document properties (default: now). */
  created?: Date;
  /** Where local images are read from (docs/images.md); absent: every image is a placeholder (SPEC.md: Images). */
  images?: ImageSource;
  /**
   * How SVGs are rendered into their PNG fallback: the engine starts no process, so a server passes a renderer that
   * runs somewhere it can be killed (server/convert-pool/render-child.ts); absent: in this thread (renderHere).
   */
  renderer?: Renderer;
  /** Number the headings 1, 1.1, … (pandoc's `--number-sections`); the front matter's `number_sections` wins. */
  numberSections?: boolean;
  /**
   * The markdown dialect (docs/api-extensions.md): 'gfm' or 'pandoc'. Asked for, it wins over the front matter's
   * `markdown:`; absent: the front matter's, else 'gfm'.
   */
  dialect?: Dialect;
  /**
   * A bibliography sent with the markdown (docs/captions-references.md), used in place of the files its front matter names
   * (which are read through `images`, the files beside the markdown).
   */
  bibliography?: BibliographyInput | readonly BibliographyInput[] | undefined;
  /** A CSL style: a bundled style's name (`apa`, `vancouver`, `harvard1`) or a CSL file's XML; else the front matter's. */
  csl?: string | undefined;
  /**
   * The blocks docx lays out at a time (package/docx-pieces.ts; default PIECE_BLOCKS). The output is the same bytes
   * whatever it is: a test sets it small to show that; no surface exposes it.
   */
  pieceBlocks?: number;
}

export interface ConvertResult {
  docx: Uint8Array;
  warnings: string[];
  /** The warnings with the first source line (null: none, e.g. a missing style) and count of each. */
  warningDetails: WarningDetail[];
  stats: ConversionStats;
}

const templates = new WeakMap<Uint8Array, Template>();

/** Reads a template once per byte array (templates are reused across conversions); the built-in one is prepared. */
function templateOf(input: ConvertInput['template']): Template {
  if (input === undefined) return defaultTemplateRead();
  if (!(input instanceof Uint8Array)) return input;
  let template = templates.get(input);
  if (!template) {
    template = readTemplate(input);
    templates.set(input, template);
  }
  return template;
}

/** The checked rules of a mapping as `convert` takes it (rules, or a mapping holding rules; absent: the default). */
export function mappingRules(mapping: ConvertInput['mapping']): MappingRules {
  if (mapping === undefined) return DEFAULT_RULES;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- callers' JSON may hold null
  const raw = typeof mapping === 'object' && mapping !== null && 'rules' in mapping ? mapping.rules : mapping;
  const checked = checkRules(raw);
  if (!checked.ok) throw new ConvertInputError('mapping_invalid', `Invalid mapping: ${checked.errors.join('; ')}`);
  return checked.rules;
}

/** Converts markdown into a .docx through a template and a style mapping. Pure: no I/O. */
export async function convert(input: ConvertInput): Promise<ConvertResult> {
  rememberXmlRegexps();
  if (typeof input.markdown !== 'string') throw new ConvertInputError('markdown_invalid', 'markdown must be a string');
  if (input.dialect !== undefined && !isDialect(input.dialect))
    throw new ConvertInputError('dialect_invalid', 'dialect must be "gfm" or "pandoc"');
  // An empty document is still a valid one (as pandoc makes it), but the user hears about it, on every surface.
  const emptyWarnings = input.markdown.trim() === '' ? ['empty_document: the markdown has no content'] : [];
  // Binary data or a file that was not UTF-8 still converts (what could be read is kept), but never silently.
  const textWarnings = notTextWarnings(input.markdown);
  const template = templateOf(input.template);
  const rules = mappingRules(input.mapping);
  const { styles, warnings: styleWarnings } = resolveStyles(rules, template.styles);
  const created = input.created ?? new Date();
  const options = elementOptions(rules);
  const { compiled, citationWarnings } = await compileMarkdown(input, template, styles, options);
  const docx = await packageDocument(template, compiled, created, {
    limit: outputLimit(input.markdown.length),
    ...(input.pieceBlocks === undefined ? {} : { pieceBlocks: input.pieceBlocks }),
  });
  const warnings = new WarningList();
  warnings.addAll(detailsOf([...emptyWarnings, ...textWarnings, ...styleWarnings]));
  warnings.addAll(compiled.warningDetails);
  for (const { warning, line } of citationWarnings) warnings.add(warning, line);
  return { docx, warnings: warnings.warnings, warningDetails: warnings.list(), stats: compiled.stats };
}

/**
 * Parses and compiles the markdown. A function of its own so that the syntax tree (tens of MB for a long document)
 * is garbage once it returns: only the compiled document reaches the package step, whose docx layout is the
 * conversion's peak of memory (docs/performance.md).
 */
async function compileMarkdown(
  input: ConvertInput,
  template: Template,
  styles: ReturnType<typeof resolveStyles>['styles'],
  options: ReturnType<typeof elementOptions>,
): Promise<{ compiled: CompiledDocument; citationWarnings: { warning: string; line: number | undefined }[] }> {
  const parsed = parseMarkdown(input.markdown, {
    math: options.math !== 'none',
    ...(input.dialect ? { dialect: input.dialect } : {}),
    ...(options.comments === 'word' ? { comments: true } : {}),
    ...(input.images ? { implicitFigures: true } : {}),
  });
  const citations = await prepareCitations(parsed.tree, input.markdown, {
    bibliography: input.bibliography,
    csl: input.csl,
    files: input.images,
  });
  warnLeftoverSyntax(parsed, input.markdown, options.math !== 'none');
  const compiled = toDocx(parsed, {
    styles,
    textWidthTwips: template.textWidthTwips,
    landscapeTextWidthTwips: template.landscapeTextWidthTwips,
    options,
    highlighting: options.code_highlighting === 'on' ? await codeHighlighting(parsed.tree, template) : undefined,
    texToOmml: hasMath(parsed.tree, input.markdown, options.math)
      ? (await import('./math/index.ts')).texToOmml
      : undefined,
    images: input.images ? new ImageEmbedder(input.images, input.renderer ?? renderHere) : undefined,
    templateFields: templateTitleFields(template),
    numberedStyles: templateNumberedStyles(template),
    language: templateLanguage(template),
    outputLimit: outputLimit(input.markdown.length),
    templateStyles: template.styles,
    numberSections: input.numberSections ?? false,
    citations,
    commentIdBase: templateCommentBase(template),
  });
  return { compiled, citationWarnings: citations?.warnings ?? [] };
}
