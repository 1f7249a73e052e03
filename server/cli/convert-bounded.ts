// `docwright convert` in the command line's own process, bounded as the server bounds a conversion: through the same
// conversion pool (server/convert-pool/), worker threads with the server's time and memory limits (or those of
// --time-limit and --memory-limit), so a document that would run for minutes or exhaust the memory stops with the
// API's document_too_complex message instead (docs/cli.md, "Limits"; docs/security.md).
import type { BibliographyInput, ConversionStats, Dialect, MappingRules } from '../convert/index.ts';
import {
  ConvertLimitError,
  ConvertPool,
  ConvertWorkerError,
  limitMessage,
  type PoolOptions,
} from '../convert-pool/pool.ts';
import type { ConvertLimits } from './convert-limits.ts';
import { BUILTIN_TEMPLATE_KEY } from '../convert-pool/protocol.ts';
import { CliError } from './errors.ts';
import { linesOf } from '../convert/warning-list.ts';

/** The flag that raises the limit a conversion ran into; none for the engine's own (its stack, the output's size). */
function hint(limit: ConvertLimitError['limit']): string | undefined {
  if (limit === 'time') return 'raise the limit with --time-limit SECONDS';
  if (limit === 'memory') return 'raise the limit with --memory-limit MB';
  return undefined;
}

/**
 * The one-sentence error of a conversion of LABEL (the input file, or standard input) stopped by a limit: the API's
 * message, and the flag that raises it.
 */
export function limitError(limit: ConvertLimitError['limit'], message: string, label: string): CliError {
  return new CliError(limitMessage(new ConvertLimitError(limit, message), hint(limit), label));
}

/**
 * The young generation of the worker of a command that converts one document, in MB (the pool's default is 96): its
 * one conversion is the process's peak of memory, and a young generation of 96 MB is RSS on top of it (cold 1.2 MB
 * peak 528 -> 468 MB, 120 KB 244 -> 201 MB; CPU at 120 KB within the noise). A batch's workers convert one document
 * after another, where the larger young generation pays (docs/performance.md, "The speed machinery").
 */
export const ONE_DOCUMENT_YOUNG_MB = 16;

/**
 * The pool's options for the command line's conversions: SIZE workers (one per conversion at a time), for JOBS
 * documents.
 */
export function poolOptions(limits: ConvertLimits, size = 1, jobs = size): PoolOptions {
  return {
    // A worker for each conversion run at once, never queued beyond them, never moved to another worker.
    size,
    maxQueue: size,
    largeJobChars: Number.MAX_SAFE_INTEGER,
    smallBudgetMs: Number.MAX_SAFE_INTEGER,
    // Its conversions compile the engine's code anyway: a warm-up first would only add to it.
    warmUp: false,
    ...(jobs === 1 ? { youngMb: ONE_DOCUMENT_YOUNG_MB } : {}),
    ...limits,
  };
}

/** What the command line converts: one input's markdown, with the template and mapping of the whole run. */
export interface CliJob {
  markdown: string;
  template: Uint8Array | undefined;
  mapping: MappingRules | { rules: MappingRules } | undefined;
  created: number;
  folder: string | undefined;
  /** --number-sections. */
  numberSections?: boolean;
  /** --from's dialect; absent: the front matter's, else GFM. */
  dialect?: Dialect;
  /** --bibliography's files; absent: the front matter's. */
  bibliography?: BibliographyInput[];
  /** --csl's style: a bundled name or a CSL file's XML; absent: the front matter's. */
  csl?: string;
}

export interface CliResult {
  docx: Uint8Array;
  warnings: string[];
  /** Each warning's first source line (null: not tied to one), in the order of `warnings`. */
  warningLines?: (number | null)[];
  stats: ConversionStats;
  /** With a template given without a mapping: how many elements its styles matched by name. */
  matched?: { matched: number; of: number };
}

/**
 * Converts in worker threads of this process under LIMITS, SIZE conversions at a time (a batch: several). The
 * template's own warnings (what reading it removed) come first, as the API reports them. `convert` throws
 * ConvertInputError, or CliError for a limit or a failure (about LABEL: the input file, or standard input).
 */
export class BoundedConverter {
  private readonly pool: ConvertPool;

  constructor(limits: ConvertLimits, size = 1, jobs = size) {
    this.pool = new ConvertPool(poolOptions(limits, size, jobs));
  }

  async convert(input: CliJob, label: string): Promise<CliResult> {
    try {
      // The mapping is checked and the built-in template read in the worker: this thread loads no engine.
      const result = await this.pool.run({
        markdown: input.markdown,
        ...(input.mapping ? { mapping: input.mapping } : {}),
        created: new Date(input.created),
        template: input.template ? { key: 'cli', bytes: input.template } : { key: BUILTIN_TEMPLATE_KEY },
        ...(input.folder ? { images: { folder: input.folder } } : {}),
        ...(input.numberSections ? { numberSections: true } : {}),
        ...(input.dialect ? { dialect: input.dialect } : {}),
        ...(input.bibliography || input.csl !== undefined
          ? {
              citations: {
                ...(input.bibliography ? { bibliography: input.bibliography } : {}),
                ...(input.csl === undefined ? {} : { csl: input.csl }),
              },
            }
          : {}),
      });
      return {
        docx: result.docx,
        warnings: result.warnings,
        warningLines: linesOf(result.warnings, result.warningDetails),
        stats: result.stats,
        ...(result.matched ? { matched: result.matched } : {}),
      };
    } catch (error) {
      if (error instanceof ConvertLimitError) throw limitError(error.limit, error.message, label);
      if (error instanceof ConvertWorkerError)
        throw new CliError(`the conversion failed: ${error.message.split('\n')[0] ?? ''}`);
      throw error;
    }
  }

  /** Ends the workers: nothing of the conversion outlives the command. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
