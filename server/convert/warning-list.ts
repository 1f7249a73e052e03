/**
 * Warnings as the engine collects them: each `<code>: <detail>` string once (the API's list, SPEC.md), and beside it
 * where in the markdown it first occurred (1-based line, from mdast positions) and how often, for people to act on.
 */

/** One distinct warning, the first source line it came from (null: not tied to a line) and its occurrences. */
export interface WarningDetail {
  warning: string;
  line: number | null;
  count: number;
}

export class WarningList {
  readonly warnings: string[] = [];
  private readonly details = new Map<string, WarningDetail>();

  /** Adds a warning (kept once), counting it and remembering the first line it came from. */
  add(warning: string, line?: number | null, count = 1): void {
    const known = this.details.get(warning);
    if (known) {
      known.count += count;
      if (known.line === null && line) known.line = line;
      return;
    }
    this.warnings.push(warning);
    this.details.set(warning, { warning, line: line ?? null, count });
  }

  /** Adds every entry of another list, its lines and counts kept. */
  addAll(details: readonly WarningDetail[]): void {
    for (const detail of details) this.add(detail.warning, detail.line, detail.count);
  }

  /** The details in the order of `warnings`. */
  list(): WarningDetail[] {
    return this.warnings
      .map((warning) => this.details.get(warning))
      .filter((detail): detail is WarningDetail => detail !== undefined);
  }
}

/** Details of warnings known only as strings (no line): one each. */
export function detailsOf(warnings: readonly string[]): WarningDetail[] {
  return warnings.map((warning) => ({ warning, line: null, count: 1 }));
}

/** The first source line of each of WARNINGS, from the engine's details (null where a warning has none). */
export function linesOf(warnings: string[], details: { warning: string; line: number | null }[]): (number | null)[] {
  const lines = new Map(details.map((detail) => [detail.warning, detail.line]));
  return warnings.map((warning) => lines.get(warning) ?? null);
}
