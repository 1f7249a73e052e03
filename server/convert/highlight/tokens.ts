// The token kinds of highlighted code, named as pandoc names its token styles (its docx writer's `KeywordTok`, …), so a
// template made for pandoc styles our code too; their look in pandoc's default theme ("pygments"); and the one table
// from highlight.js's scopes to those kinds.

/** Code's font and size (half-points: 9 pt, SPEC), in every token style Docwright defines (compile/state.ts has the same). */
export const CODE_FONT = 'Consolas';
export const CODE_HALF_POINTS = 18;

/** pandoc's token kinds, in the order its docx writer lists their styles. */
export const TOKEN_KINDS = [
  'KeywordTok',
  'DataTypeTok',
  'DecValTok',
  'BaseNTok',
  'FloatTok',
  'ConstantTok',
  'CharTok',
  'SpecialCharTok',
  'StringTok',
  'VerbatimStringTok',
  'SpecialStringTok',
  'ImportTok',
  'CommentTok',
  'DocumentationTok',
  'AnnotationTok',
  'CommentVarTok',
  'OtherTok',
  'FunctionTok',
  'VariableTok',
  'ControlFlowTok',
  'OperatorTok',
  'BuiltInTok',
  'ExtensionTok',
  'PreprocessorTok',
  'AttributeTok',
  'RegionMarkerTok',
  'InformationTok',
  'WarningTok',
  'AlertTok',
  'ErrorTok',
  'NormalTok',
] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** A stretch of a code line and its token kind. */
export interface Token {
  text: string;
  kind: TokenKind;
}

/** What highlighting a block gives: its lines' tokens, or the warning why it stays plain. */
export type Highlighted = { lines: Token[][] } | { warning: string };

/** A token kind's look: a colour (RRGGBB), bold, italic. */
export interface TokenLook {
  color?: string;
  bold?: true;
  italics?: true;
}

/** pandoc's default highlighting theme ("pygments"), as pandoc 2.17 writes it into a .docx. */
export const TOKEN_THEME: Readonly<Record<TokenKind, TokenLook>> = {
  KeywordTok: { color: '007020', bold: true },
  DataTypeTok: { color: '902000' },
  DecValTok: { color: '40A070' },
  BaseNTok: { color: '40A070' },
  FloatTok: { color: '40A070' },
  ConstantTok: { color: '880000' },
  CharTok: { color: '4070A0' },
  SpecialCharTok: { color: '4070A0' },
  StringTok: { color: '4070A0' },
  VerbatimStringTok: { color: '4070A0' },
  SpecialStringTok: { color: 'BB6688' },
  ImportTok: { color: '008000', bold: true },
  CommentTok: { color: '60A0B0', italics: true },
  DocumentationTok: { color: 'BA2121', italics: true },
  AnnotationTok: { color: '60A0B0', bold: true, italics: true },
  CommentVarTok: { color: '60A0B0', bold: true, italics: true },
  OtherTok: { color: '007020' },
  FunctionTok: { color: '06287E' },
  VariableTok: { color: '19177C' },
  ControlFlowTok: { color: '007020', bold: true },
  OperatorTok: { color: '666666' },
  BuiltInTok: { color: '008000' },
  ExtensionTok: {},
  PreprocessorTok: { color: 'BC7A00' },
  AttributeTok: { color: '7D9029' },
  RegionMarkerTok: {},
  InformationTok: { color: '60A0B0', bold: true, italics: true },
  WarningTok: { color: '60A0B0', bold: true, italics: true },
  AlertTok: { color: 'FF0000', bold: true },
  ErrorTok: { color: 'FF0000', bold: true },
  NormalTok: {},
};

/**
 * highlight.js's scopes (https://highlightjs.readthedocs.io/en/latest/css-classes-reference.html) → pandoc's kinds.
 * A dotted scope not listed takes its first part's kind (`title.class.inherited` → `title.class`, else `title`); a
 * scope not listed at all takes the kind of the scope around it; text in none is `NormalTok`.
 */
export const SCOPE_KINDS: Readonly<Record<string, TokenKind>> = {
  keyword: 'KeywordTok',
  built_in: 'BuiltInTok',
  type: 'DataTypeTok',
  literal: 'ConstantTok',
  number: 'DecValTok',
  operator: 'OperatorTok',
  punctuation: 'NormalTok',
  property: 'AttributeTok',
  regexp: 'SpecialStringTok',
  string: 'StringTok',
  'char.escape': 'SpecialCharTok',
  subst: 'NormalTok',
  symbol: 'ConstantTok',
  class: 'DataTypeTok',
  function: 'FunctionTok',
  variable: 'VariableTok',
  'variable.language': 'BuiltInTok',
  'variable.constant': 'ConstantTok',
  title: 'FunctionTok',
  'title.class': 'DataTypeTok',
  'title.function': 'FunctionTok',
  'title.function.invoke': 'FunctionTok',
  params: 'NormalTok',
  comment: 'CommentTok',
  doctag: 'CommentVarTok',
  meta: 'PreprocessorTok',
  'meta.prompt': 'OtherTok',
  'meta.keyword': 'PreprocessorTok',
  'meta.string': 'StringTok',
  section: 'KeywordTok',
  tag: 'NormalTok',
  name: 'KeywordTok',
  attr: 'AttributeTok',
  attribute: 'AttributeTok',
  bullet: 'SpecialCharTok',
  code: 'VerbatimStringTok',
  emphasis: 'NormalTok',
  strong: 'NormalTok',
  formula: 'SpecialStringTok',
  link: 'OtherTok',
  quote: 'CommentTok',
  'selector-tag': 'KeywordTok',
  'selector-id': 'VariableTok',
  'selector-class': 'VariableTok',
  'selector-attr': 'AttributeTok',
  'selector-pseudo': 'AttributeTok',
  'template-tag': 'PreprocessorTok',
  'template-variable': 'VariableTok',
  addition: 'VariableTok',
  deletion: 'AlertTok',
};

/** The kind of a highlight.js scope (`title.function`), undefined when the table has neither it nor its first parts. */
export function scopeKind(scope: string): TokenKind | undefined {
  for (let s = scope; s !== ''; s = s.includes('.') ? s.slice(0, s.lastIndexOf('.')) : '') {
    const kind = Object.hasOwn(SCOPE_KINDS, s) ? SCOPE_KINDS[s] : undefined;
    if (kind !== undefined) return kind;
  }
  return undefined;
}
