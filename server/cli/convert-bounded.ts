// `docwright convert` in the command line's own process, bounded as the server bounds a conversion: through the same
// conversion pool (server/convert-pool/), one worker thread with the server's time and memory limits (or those of
// --time-limit and --memory-limit), so a document that would run for minutes or exhaust the memory stops with the
// API's document_too_complex message instead (docs/cli.md, "Limits"; docs/threat-model.md).
import type { ConversionStats, MappingRules } from '../convert/index.ts';
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

/** The pool's options for one command line's conversion. */
export function poolOptions(limits: ConvertLimits): PoolOptions {
  return {
    // One worker for the one conversion, never queued, never moved to another worker.
    size: 1,
    maxQueue: 0,
    largeJobChars: Number.MAX_SAFE_INTEGER,
    smallBudgetMs: Number.MAX_SAFE_INTEGER,
    // Its one conversion compiles the engine's code anyway: a warm-up first would only add to it.
    warmUp: false,
    ...limits,
  };
}

/**
 * Converts in a worker thread of this process under LIMITS. The template's own warnings (what reading it removed)
 * come first, as the daemon and the API report them. Throws ConvertInputError, or CliError for a limit or a failure
 * (about LABEL: the input file, or standard input).
 */
export async function convertBounded(
  input: {
    markdown: string;
    template: Uint8Array | undefined;
    mapping: MappingRules | { rules: MappingRules } | undefined;
    created: number;
    folder: string | undefined;
  },
  limits: ConvertLimits,
  label: string,
): Promise<{ docx: Uint8Array; warnings: string[]; stats: ConversionStats }> {
  const pool = new ConvertPool(poolOptions(limits));
  try {
    // The mapping is checked and the built-in template read in the worker: this thread loads no engine.
    const result = await pool.run({
      markdown: input.markdown,
      ...(input.mapping ? { mapping: input.mapping } : {}),
      created: new Date(input.created),
      template: input.template ? { key: 'cli', bytes: input.template } : { key: BUILTIN_TEMPLATE_KEY },
      ...(input.folder ? { images: { folder: input.folder } } : {}),
    });
    return { docx: result.docx, warnings: result.warnings, stats: result.stats };
  } catch (error) {
    if (error instanceof ConvertLimitError) throw limitError(error.limit, error.message, label);
    if (error instanceof ConvertWorkerError)
      throw new CliError(`the conversion failed: ${error.message.split('\n')[0] ?? ''}`);
    throw error;
  } finally {
    await pool.close();
  }
}
