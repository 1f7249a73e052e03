/** An input the engine cannot work with (not a .docx, a macro-enabled file, a malformed mapping…). */
export class ConvertInputError extends Error {
  constructor(
    /** Machine-readable reason, e.g. `template_invalid`, `mapping_invalid`. */
    readonly code: 'template_invalid' | 'mapping_invalid' | 'markdown_invalid',
    message: string,
  ) {
    super(message);
    this.name = 'ConvertInputError';
  }
}
