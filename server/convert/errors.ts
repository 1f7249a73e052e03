/** An input the engine cannot work with (not a .docx, a macro-enabled file, a malformed mapping…). */
export class ConvertInputError extends Error {
  constructor(
    /** Machine-readable reason, e.g. `template_invalid`, `mapping_invalid`. */
    readonly code:
      'template_invalid' | 'mapping_invalid' | 'markdown_invalid' | 'dialect_invalid' | 'bibliography_invalid',
    message: string,
  ) {
    super(message);
    this.name = 'ConvertInputError';
  }
}

/**
 * What the document would be is out of proportion to its markdown (OUTPUT_FACTOR): markdown is a short way to write
 * some structures (a table row `|` padded to every column), so the output is bounded by the input, not only by time.
 */
export class OutputTooLargeError extends Error {
  override name = 'OutputTooLargeError';
}

/** The Word XML Docwright writes (body and notes) is at most this many times the markdown's characters… */
export const OUTPUT_FACTOR = 500;
/** …plus this many characters. */
export const OUTPUT_SLACK = 1024 * 1024;

/** The refusal of a document that would be CHARS characters of Word XML. */
export function outputTooLarge(chars: number): OutputTooLargeError {
  const megabytes = (chars / 1024 / 1024).toFixed(1);
  return new OutputTooLargeError(
    `the document would be ${megabytes} MB of Word XML, more than ${String(OUTPUT_FACTOR)} times its markdown`,
  );
}

/** The most characters of Word XML a conversion of MARKDOWNCHARS may write. */
export function outputLimit(markdownChars: number): number {
  return OUTPUT_FACTOR * markdownChars + OUTPUT_SLACK;
}
