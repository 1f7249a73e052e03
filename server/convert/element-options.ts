/** Mapping options where SPEC.md fixes one behaviour: SPEC's is the default, the others are asked for by name. */
export const ELEMENT_OPTIONS = {
  /** A horizontal rule: a page break (SPEC), a paragraph with a bottom border, or nothing. */
  thematic_break: ['page_break', 'rule', 'none'],
  /** A task list item: an ordinary item (SPEC), or one led by a ☐/☒ box. */
  task_list: ['plain', 'checkbox'],
  /**
   * TeX math (docs/api-extensions.md): `$…$`, `$$…$$` and `$$` fences as Word equations (the default: SPEC defines
   * no output for them), also ```` ```math ```` fences (which SPEC makes code blocks), or none (dollars are text).
   */
  math: ['dollars', 'dollars_and_fences', 'none'],
  /** Fenced code in a known language: highlighted, a character style per token kind (SPEC's monospace kept), or plain. */
  code_highlighting: ['on', 'off'],
  /** An HTML comment `<!-- … -->`: dropped (what a reader of the rendered markdown sees), or a Word comment there. */
  comments: ['drop', 'word'],
} as const;

export type ElementOptionKey = keyof typeof ELEMENT_OPTIONS;
export type ThematicBreak = (typeof ELEMENT_OPTIONS.thematic_break)[number];
export type TaskList = (typeof ELEMENT_OPTIONS.task_list)[number];
export type MathOption = (typeof ELEMENT_OPTIONS.math)[number];
export type CodeHighlighting = (typeof ELEMENT_OPTIONS.code_highlighting)[number];
export type CommentsOption = (typeof ELEMENT_OPTIONS.comments)[number];

/** The options a conversion applies, each resolved to a value. */
export interface ElementOptions {
  thematic_break: ThematicBreak;
  task_list: TaskList;
  math: MathOption;
  code_highlighting: CodeHighlighting;
  comments: CommentsOption;
}

/** SPEC.md's behaviour, for a mapping that names no option. */
export const DEFAULT_ELEMENT_OPTIONS: ElementOptions = {
  thematic_break: 'page_break',
  task_list: 'plain',
  math: 'dollars',
  code_highlighting: 'on',
  comments: 'drop',
};

/** Whether a rules key is one of the options. */
export function isElementOption(key: string): key is ElementOptionKey {
  return Object.hasOwn(ELEMENT_OPTIONS, key);
}

/** Checks one option's value; the error names the field and the values allowed. */
export function checkOption(key: ElementOptionKey, value: unknown, field: string): string | undefined {
  const allowed: readonly string[] = ELEMENT_OPTIONS[key];
  if (typeof value === 'string' && allowed.includes(value)) return undefined;
  return `${field} must be one of ${allowed.map((v) => `"${v}"`).join(', ')}`;
}

/** The options of checked rules, SPEC's default where one is not named. */
export function elementOptions(rules: Partial<ElementOptions>): ElementOptions {
  return {
    thematic_break: rules.thematic_break ?? DEFAULT_ELEMENT_OPTIONS.thematic_break,
    task_list: rules.task_list ?? DEFAULT_ELEMENT_OPTIONS.task_list,
    math: rules.math ?? DEFAULT_ELEMENT_OPTIONS.math,
    code_highlighting: rules.code_highlighting ?? DEFAULT_ELEMENT_OPTIONS.code_highlighting,
    comments: rules.comments ?? DEFAULT_ELEMENT_OPTIONS.comments,
  };
}
