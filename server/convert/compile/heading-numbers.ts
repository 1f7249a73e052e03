import type { Heading, Nodes, Root } from 'mdast';
import type { HeadingLevel, ResolvedStyles } from '../mapping.ts';
import { HEADING_LEVELS } from '../mapping.ts';

/**
 * Numbered headings (front matter `number_sections` or `numbersections`, the convert option `number_sections`): the
 * packaging step attaches a multilevel list to the heading styles (package/heading-numbering.ts); the compiler counts
 * the headings as Word will, so the table of contents is pre-filled with their numbers.
 */
export class HeadingNumbers {
  /** Asked for (the option, then the front matter). */
  asked: boolean;
  private readonly counters: number[] = [];
  /** The number each numbered heading gets, by its bookmark name. */
  readonly numbers = new Map<string, string>();

  constructor(
    asked: boolean,
    private readonly styles: ResolvedStyles,
    private readonly numberedStyles: ReadonlyMap<string, unknown>,
  ) {
    this.asked = asked;
  }

  /** The heading styles by level (1–6), when the numbering is ours to add: asked, and no heading style numbers itself. */
  styleIds(): (string | undefined)[] | undefined {
    if (!this.asked) return undefined;
    const ids = HEADING_LEVELS.map((level) => this.styles.heading[level]);
    if (ids.every((id) => id === undefined)) return undefined;
    // A template whose heading styles carry numbering keeps its own: never a second number.
    if (ids.some((id) => id !== undefined && this.numberedStyles.has(id))) return undefined;
    return ids;
  }

  /** Asked for, but no heading level has a style to carry the list (the headings are directly formatted). */
  nothingToNumber(): boolean {
    return this.asked && HEADING_LEVELS.every((level) => this.styles.heading[level] === undefined);
  }

  /** Every heading of the document in order, with its bookmark (collect), to number ahead of the handlers. */
  private headings: { node: Heading; bookmark: string | undefined }[] = [];
  private planned: Map<string, string> | undefined;

  /** First pass: the headings, so that a reference before a heading knows its number (numberOf). */
  collect(tree: Root, nameOf: (node: Heading) => string | undefined): void {
    const stack: Nodes[] = [tree];
    for (let node = stack.pop(); node; node = stack.pop()) {
      if (node.type === 'heading') this.headings.push({ node, bookmark: nameOf(node) });
      // The abstract's headings are printed (and counted) where the front matter stands.
      else if (node.type === 'yaml' && node.data?.abstract) stack.push(node.data.abstract.tree);
      else if ('children' in node)
        for (let k = node.children.length - 1; k >= 0; k--) stack.push(node.children[k] as Nodes);
    }
  }

  /**
   * The number (`2.1`, no final dot) the heading with this bookmark gets where the headings are numbered by us, counted
   * ahead as `count` will count them (`skipped`: the heading the printed title replaces); undefined: not numbered.
   */
  numberOf(bookmark: string, skipped?: Heading, unnumbered: ReadonlySet<Heading> = new Set()): string | undefined {
    if (this.styleIds() === undefined) return undefined;
    if (!this.planned) {
      const ahead = new HeadingNumbers(true, this.styles, this.numberedStyles);
      this.planned = new Map();
      for (const { node, bookmark: name } of this.headings) {
        if (node === skipped || unnumbered.has(node) || node.data?.attributes?.classes.includes('unnumbered')) continue;
        const number = ahead.count(String(node.depth) as HeadingLevel, name);
        if (number !== undefined && name !== undefined) this.planned.set(name, number.replace(/\.$/, ''));
      }
    }
    return this.planned.get(bookmark);
  }

  /** Counts a heading printed in its level's style (not `.unnumbered`), as Word's list will; its number, `1.2.`. */
  count(level: HeadingLevel, bookmark: string | undefined): string | undefined {
    if (this.styleIds() === undefined || this.styles.heading[level] === undefined) return undefined;
    const depth = Number(level);
    this.counters[depth - 1] = (this.counters[depth - 1] ?? 0) + 1;
    this.counters.length = depth;
    // A level skipped (a ### right under a #) shows its start, 1, as Word and LibreOffice print it, and stays uncounted.
    const number = Array.from({ length: depth }, (_, k) => `${this.counters[k] || 1}.`).join('');
    if (bookmark !== undefined) this.numbers.set(bookmark, number);
    return number;
  }
}

/** Reads `number_sections` (or pandoc's `numbersections`) from the front matter: true, false, or a warning. */
export function numberSectionsFrontMatter(
  record: Record<string, unknown>,
  warn: (warning: string) => void,
): { used: string[]; value: boolean | undefined } {
  const used: string[] = [];
  let value: boolean | undefined;
  for (const key of ['number_sections', 'numbersections']) {
    if (!(key in record)) continue;
    used.push(key);
    const v = record[key];
    if (typeof v === 'boolean') value ??= v;
    else warn(`invalid_front_matter: ${key} must be true or false (ignored)`);
  }
  return { used, value };
}
