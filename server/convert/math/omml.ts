// MathML (temml's output) → OMML, Word's native equations (ECMA-376 part 1, 22.1). Written here rather than taken
// from mathml2omml (LGPL-3.0) for the reasons in docs/elements.md ("Math"). The shapes follow what pandoc (texmath)
// writes for the same TeX where Word edits them alike (test/convert/math-pandoc.test.ts compares them), and the
// schema's element order where pandoc's differs. Property elements are written in the schema's order.
import { DOMParser, type Element } from '@xmldom/xmldom';

const MATHML = 'http://www.w3.org/1998/Math/MathML';

/** N-ary operators: Word's m:nary, its limits under and over (sums) or at the side (integrals). */
const SUMS = new Set(['∑', '∏', '∐', '⋀', '⋁', '⋂', '⋃', '⨀', '⨁', '⨂', '⨄', '⨆']);
const INTEGRALS = new Set(['∫', '∬', '∭', '∮', '∯', '∰', '∱', '∲', '∳', '⨌']);
/** Braces over or under an expression: m:groupChr. */
const GROUP_CHARACTERS = new Set(['⏞', '⏟', '⎴', '⎵', '⏜', '⏝']);
/** Accents as MathML spells them → the combining character Word's m:acc takes. */
const ACCENTS: Record<string, string> = {
  ˆ: '\u0302',
  '^': '\u0302',
  ˇ: '\u030C',
  '˘': '\u0306',
  '˙': '\u0307',
  '¨': '\u0308',
  '~': '\u0303',
  '˜': '\u0303',
  '‾': '\u0305',
  '¯': '\u0305',
  '→': '\u20D7',
  '←': '\u20D6',
  '↔': '\u20E1',
  '´': '\u0301',
  '`': '\u0300',
  '˚': '\u030A',
  '⃛': '\u20DB',
};
/** Widths of temml's spaces (em) → the space characters Word shows for them. */
const SPACES: [number, string][] = [
  [0.1667, '\u2009'],
  [0.2222, '\u205F'],
  [0.2778, '\u2004'],
  [1, '\u2003'],
  [2, '\u2003\u2003'],
];
const FUNCTION_APPLICATION = '\u2061';

/** Mathematical alphanumeric symbols (U+1D400…) → the letter and its OMML style: 13 alphabets of 52 letters. */
const ALPHABETS: { sty?: string; scr?: string }[] = [
  { sty: 'b' },
  { sty: 'i' },
  { sty: 'bi' },
  { scr: 'script' },
  { scr: 'script', sty: 'b' },
  { scr: 'fraktur' },
  { scr: 'double-struck' },
  { scr: 'fraktur', sty: 'b' },
  { scr: 'sans-serif', sty: 'p' },
  { scr: 'sans-serif', sty: 'b' },
  { scr: 'sans-serif', sty: 'i' },
  { scr: 'sans-serif', sty: 'bi' },
  { scr: 'monospace', sty: 'p' },
];
/** Digits from U+1D7CE: bold, double-struck, sans-serif, sans-serif bold, monospace. */
const DIGIT_STYLES: { sty?: string; scr?: string }[] = [
  { sty: 'b' },
  { scr: 'double-struck' },
  { scr: 'sans-serif', sty: 'p' },
  { scr: 'sans-serif', sty: 'b' },
  { scr: 'monospace', sty: 'p' },
];
/** The letters of those alphabets that Unicode keeps in the Letterlike Symbols block. */
const LETTERLIKE: Record<string, [string, { sty?: string; scr?: string }]> = {
  ℎ: ['h', { sty: 'i' }],
  ℬ: ['B', { scr: 'script' }],
  ℰ: ['E', { scr: 'script' }],
  ℱ: ['F', { scr: 'script' }],
  ℋ: ['H', { scr: 'script' }],
  ℐ: ['I', { scr: 'script' }],
  ℒ: ['L', { scr: 'script' }],
  ℳ: ['M', { scr: 'script' }],
  ℛ: ['R', { scr: 'script' }],
  ℯ: ['e', { scr: 'script' }],
  ℊ: ['g', { scr: 'script' }],
  ℴ: ['o', { scr: 'script' }],
  ℭ: ['C', { scr: 'fraktur' }],
  ℌ: ['H', { scr: 'fraktur' }],
  ℑ: ['I', { scr: 'fraktur' }],
  ℜ: ['R', { scr: 'fraktur' }],
  ℨ: ['Z', { scr: 'fraktur' }],
  ℂ: ['C', { scr: 'double-struck' }],
  ℍ: ['H', { scr: 'double-struck' }],
  ℕ: ['N', { scr: 'double-struck' }],
  ℙ: ['P', { scr: 'double-struck' }],
  ℚ: ['Q', { scr: 'double-struck' }],
  ℝ: ['R', { scr: 'double-struck' }],
  ℤ: ['Z', { scr: 'double-struck' }],
};

/** An OMML element as the converter builds it: its name (with the m: prefix), attributes, children and text. */
export interface OmmlElement {
  name: string;
  attributes?: Record<string, string>;
  children: OmmlNode[];
}
/** An element, or the text of an m:t. */
export type OmmlNode = OmmlElement | string;

const node = (name: string, children: OmmlNode[] = [], attributes?: Record<string, string>): OmmlElement => ({
  name: `m:${name}`,
  children,
  ...(attributes ? { attributes } : {}),
});
const val = (name: string, value: string): OmmlElement => node(name, [], { 'm:val': value });
const wrap = (name: string, content: OmmlNode[]): OmmlElement => node(name, content);
/** An element with its properties element first (`m:f` with `m:fPr`), when it has any. */
const withPr = (name: string, properties: OmmlElement[], content: OmmlNode[]): OmmlElement =>
  node(name, [...(properties.length > 0 ? [node(`${name}Pr`, properties)] : []), ...content]);

const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string): string => escapeText(text).replace(/"/g, '&quot;');

/** OMML as Word XML text (the m: prefix undeclared: the document's root declares it). */
export function ommlXml(nodes: readonly OmmlNode[]): string {
  let out = '';
  for (const n of nodes) {
    if (typeof n === 'string') {
      out += escapeText(n);
      continue;
    }
    const attributes = Object.entries(n.attributes ?? {})
      .map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`)
      .join('');
    out +=
      n.children.length > 0
        ? `<${n.name}${attributes}>${ommlXml(n.children)}</${n.name}>`
        : `<${n.name}${attributes}/>`;
  }
  return out;
}

function elements(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

const nameOf = (el: Element): string => el.localName ?? el.nodeName;
const textOf = (el: Element): string => el.textContent ?? '';

/** A letter of the mathematical alphanumeric symbols as its plain letter and style, or the character unchanged. */
function plainLetter(char: string): [string, { sty?: string; scr?: string } | undefined] {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x1d400 && code < 0x1d400 + 13 * 52) {
    const index = code - 0x1d400;
    const letter = index % 52;
    const plain = String.fromCharCode(letter < 26 ? 65 + letter : 97 + letter - 26);
    return [plain, ALPHABETS[Math.floor(index / 52)]];
  }
  if (code >= 0x1d7ce && code <= 0x1d7ff) {
    const index = code - 0x1d7ce;
    return [String.fromCharCode(48 + (index % 10)), DIGIT_STYLES[Math.floor(index / 10)]];
  }
  const letterlike = LETTERLIKE[char];
  return letterlike ?? [char, undefined];
}

interface RunStyle {
  sty?: string;
  scr?: string;
  nor?: boolean;
}

/** One m:r: its text split where the alphabet changes (𝐅 is a bold F), each piece with its m:rPr. */
function run(text: string, style: RunStyle): OmmlNode[] {
  if (text === '') return [];
  const pieces: { text: string; style: RunStyle }[] = [];
  for (const char of text) {
    const [plain, alphabet] = plainLetter(char);
    const next: RunStyle = alphabet ? { ...style, ...alphabet } : style;
    const last = pieces.at(-1);
    if (last && last.style.sty === next.sty && last.style.scr === next.scr && last.style.nor === next.nor)
      last.text += plain;
    else pieces.push({ text: plain, style: next });
  }
  return pieces.map(({ text: t, style: s }) => {
    const properties = [
      ...(s.nor ? [node('nor')] : []),
      ...(s.scr ? [val('scr', s.scr)] : []),
      ...(s.sty ? [val('sty', s.sty)] : []),
    ];
    const space = /^\s|\s$/.test(t) ? { 'xml:space': 'preserve' } : undefined;
    return node('r', [...(properties.length > 0 ? [node('rPr', properties)] : []), node('t', [t], space)]);
  });
}

/** The run style of a token element. */
function tokenStyle(el: Element, text: string): RunStyle {
  const name = nameOf(el);
  const variant = el.getAttribute('mathvariant');
  if (name === 'mtext' || name === 'ms') return { nor: true };
  if (name === 'mo') return { sty: 'p' };
  if (name === 'mi') {
    if (variant === 'normal' || Array.from(text).length > 1) return { sty: 'p' };
    if (variant === 'bold') return { sty: 'b' };
    if (variant === 'bold-italic') return { sty: 'bi' };
    return {};
  }
  if (variant === 'bold') return { sty: 'b' };
  return {};
}

function spaceOf(el: Element): OmmlNode[] {
  const width = /^(-?[\d.]+)em$/.exec(el.getAttribute('width') ?? '');
  if (!width?.[1]) return [];
  const em = Number(width[1]);
  if (!(em > 0.1)) return [];
  let best = SPACES[0]?.[1] ?? ' ';
  let distance = Infinity;
  for (const [size, chars] of SPACES)
    if (Math.abs(size - em) < distance) {
      distance = Math.abs(size - em);
      best = chars;
    }
  return run(best, {});
}

const isMo = (el: Element | undefined): boolean => el !== undefined && nameOf(el) === 'mo';

/** The big operator an element is or carries as its base (∑ with limits), if any. */
function bigOperator(el: Element): string | undefined {
  const name = nameOf(el);
  const base = ['msub', 'msup', 'msubsup', 'munder', 'mover', 'munderover'].includes(name) ? elements(el)[0] : el;
  if (!base || !isMo(base)) return undefined;
  const char = textOf(base).trim();
  return SUMS.has(char) || INTEGRALS.has(char) ? char : undefined;
}

/** An mrow that is a fenced group: a prefix fence first, a postfix fence last. */
function fences(el: Element): [string, string, Element[]] | undefined {
  const kids = elements(el);
  const first = kids[0];
  const last = kids.at(-1);
  if (kids.length < 2 || !first || !last || !isMo(first) || !isMo(last)) return undefined;
  const opens = first.getAttribute('fence') === 'true' && first.getAttribute('form') !== 'postfix';
  const closes = last.getAttribute('fence') === 'true' && last.getAttribute('form') !== 'prefix';
  if (!opens || !closes) return undefined;
  return [textOf(first).trim(), textOf(last).trim(), kids.slice(1, -1)];
}

/** Temml's `\\boxed{…}`: an mrow with a border. */
const isBoxed = (el: Element): boolean => /border:/.test(el.getAttribute('style') ?? '');

/** Elements whose children stand in the sequence around them (no OMML element of their own). */
const TRANSPARENT = new Set(['mrow', 'mstyle', 'mpadded', 'math', 'semantics', 'mlabeledtr', 'span']);

/** The children of a sequence, groups without an OMML element of their own opened. */
function flatten(kids: readonly Element[], out: Element[] = []): Element[] {
  for (const el of kids) {
    const name = nameOf(el);
    if (name === 'annotation' || name === 'annotation-xml') continue;
    if (TRANSPARENT.has(name) && !(name === 'mrow' && (fences(el) || isBoxed(el)))) flatten(elements(el), out);
    else out.push(el);
  }
  return out;
}

/** Bars that TeX writes as plain characters on both sides (`|x|`, `\\|v\\|`): paired, they are a fenced group. */
const BARS = new Set(['|', '‖']);
const isBar = (el: Element | undefined): el is Element =>
  el !== undefined && (nameOf(el) === 'mi' || nameOf(el) === 'mo') && BARS.has(textOf(el).trim());

/** A sequence of MathML elements as OMML. */
function sequence(kids: readonly Element[]): OmmlNode[] {
  const items = flatten(kids);
  const out: OmmlNode[] = [];
  for (let i = 0; i < items.length; i++) {
    const el = items[i];
    if (!el) continue;
    if (isBar(el)) {
      const bar = textOf(el).trim();
      const close = items.findIndex((other, k) => k > i + 1 && isBar(other) && textOf(other).trim() === bar);
      if (close > 0) {
        out.push(delimited(bar, bar, items.slice(i + 1, close)));
        i = close;
        continue;
      }
    }
    // Temml writes a function application and a thin space after `\sin`: Word spaces functions itself.
    if (isMo(el) && textOf(el) === FUNCTION_APPLICATION) {
      const next = items[i + 1];
      if (next && nameOf(next) === 'mspace') i += 1;
      continue;
    }
    // `{}^{14}_{6}C`: scripts on nothing before an element are its pre-scripts (m:sPre).
    const next = items[i + 1];
    if (next && isPrescript(el)) {
      const kids = elements(el);
      const name = nameOf(el);
      const sub = name === 'msup' ? [] : piece(kids[1] as Element);
      const sup = name === 'msub' ? [] : piece(kids[name === 'msup' ? 1 : 2] as Element);
      out.push(node('sPre', [wrap('sub', sub), wrap('sup', sup), wrap('e', piece(next))]));
      i += 1;
      continue;
    }
    const operator = bigOperator(el);
    if (operator) {
      // Big operators in a row (`\sum_i \sum_j x`): each is the argument of the one before, as pandoc writes them,
      // at most MAX_NARY_CHAIN deep (the rest follow as operators of their own).
      const chain: [Element, string][] = [[el, operator]];
      for (let next = items[i + 1]; next && chain.length < MAX_NARY_CHAIN; next = items[i + 1]) {
        const inner = bigOperator(next);
        if (!inner) break;
        chain.push([next, inner]);
        i += 1;
      }
      // As pandoc does: the last operator's argument is the element after it (an operator or a space is none).
      const next = items[i + 1];
      const argument = next && !isMo(next) && nameOf(next) !== 'mspace' ? next : undefined;
      if (argument) i += 1;
      let made: OmmlNode[] = argument ? piece(argument) : [];
      for (let k = chain.length - 1; k >= 0; k--) {
        const [at, char] = chain[k] as [Element, string];
        made = [nary(at, char, made)];
      }
      out.push(...made);
      continue;
    }
    out.push(...piece(el));
  }
  return out;
}

/** The most big operators nested as each other's argument (`\sum\sum\sum x`); a longer row continues unnested. */
const MAX_NARY_CHAIN = 8;

/** msub, msup or msubsup on an empty base (`{}^{14}_{6}`). */
function isPrescript(el: Element): boolean {
  const name = nameOf(el);
  const kids = elements(el);
  const count = name === 'msubsup' ? 3 : name === 'msub' || name === 'msup' ? 2 : 0;
  const base = kids[0];
  return count > 0 && kids.length === count && base !== undefined && nameOf(base) === 'mrow' && textOf(base) === '';
}

/** A fenced group: m:d, its delimiters growing with the content as `\\left…\\right` ones do. */
function delimited(open: string, close: string, inner: Element[]): OmmlElement {
  const properties = [val('begChr', open), val('sepChr', ''), val('endChr', close), node('grow')];
  return withPr('d', properties, [wrap('e', sequence(inner))]);
}

function nary(el: Element, operator: string, argument: OmmlNode[]): OmmlElement {
  const name = nameOf(el);
  const kids = elements(el);
  const under =
    name === 'msub' || name === 'munder' || name === 'msubsup' || name === 'munderover' ? kids[1] : undefined;
  const over =
    name === 'msup' || name === 'mover' ? kids[1] : name === 'msubsup' || name === 'munderover' ? kids[2] : undefined;
  const location = INTEGRALS.has(operator) ? 'subSup' : 'undOvr';
  const properties = [
    val('chr', operator),
    val('limLoc', location),
    val('subHide', under ? '0' : '1'),
    val('supHide', over ? '0' : '1'),
  ];
  const scripts = [wrap('sub', under ? piece(under) : []), wrap('sup', over ? piece(over) : [])];
  return withPr('nary', properties, [...scripts, wrap('e', argument)]);
}

/** The OMML of one element (an argument of a structure: its sequence). */
function piece(el: Element): OmmlNode[] {
  const name = nameOf(el);
  const kids = elements(el);
  const arg = (k: number): OmmlNode[] => {
    const child = kids[k];
    return child ? sequence([child]) : [];
  };
  switch (name) {
    case 'mi':
    case 'mn':
    case 'mo':
    case 'mtext':
    case 'ms': {
      // Temml writes the spaces of `\text{if }` as no-break spaces; Word's text in math keeps plain ones.
      const text = name === 'mtext' ? textOf(el).replace(/\u00A0/g, ' ') : textOf(el);
      if (name === 'mo' && text === FUNCTION_APPLICATION) return [];
      return run(text, tokenStyle(el, text));
    }
    case 'mspace':
      return spaceOf(el);
    case 'mrow': {
      if (isBoxed(el)) return [node('borderBox', [wrap('e', sequence(kids))])];
      const fenced = fences(el);
      if (!fenced) return sequence(kids);
      const [open, close, inner] = fenced;
      return [delimited(open, close, inner)];
    }
    case 'mfrac': {
      const thickness = el.getAttribute('linethickness');
      const noBar = thickness !== null && /^0(\.0*)?([a-z]+)?$/.test(thickness.trim());
      return [withPr('f', [val('type', noBar ? 'noBar' : 'bar')], [wrap('num', arg(0)), wrap('den', arg(1))])];
    }
    case 'msub':
      return [node('sSub', [wrap('e', arg(0)), wrap('sub', arg(1))])];
    case 'msup':
      return [node('sSup', [wrap('e', arg(0)), wrap('sup', arg(1))])];
    case 'msubsup':
      return [node('sSubSup', [wrap('e', arg(0)), wrap('sub', arg(1)), wrap('sup', arg(2))])];
    case 'msqrt':
      return [withPr('rad', [val('degHide', '1')], [node('deg'), wrap('e', sequence(kids))])];
    case 'mroot':
      return [node('rad', [wrap('deg', arg(1)), wrap('e', arg(0))])];
    case 'mover':
    case 'munder':
      return [overOrUnder(el, kids, name === 'mover' ? 'top' : 'bot')];
    case 'munderover': {
      const lower = node('limLow', [wrap('e', arg(0)), wrap('lim', arg(1))]);
      return [node('limUpp', [wrap('e', [lower]), wrap('lim', arg(2))])];
    }
    case 'mtable':
      return tagged(kids) ?? [matrix(kids)];
    case 'menclose':
      return [enclosed(el, sequence(kids))];
    case 'mphantom':
      return [withPr('phant', [val('show', '0')], [wrap('e', sequence(kids))])];
    case 'mmultiscripts':
      return multiscripts(kids);
    case 'annotation':
    case 'annotation-xml':
      return [];
    default:
      // Anything else (merror, maction, HTML in mtext) keeps its content.
      return kids.length > 0 ? sequence(kids) : run(textOf(el), {});
  }
}

/** mover/munder: an accent (m:acc), a brace (m:groupChr), a bar (m:bar), else limits (m:limUpp/m:limLow). */
function overOrUnder(el: Element, kids: Element[], position: 'top' | 'bot'): OmmlElement {
  const base = kids[0] ? sequence([kids[0]]) : [];
  const mark = kids[1];
  const char = mark && isMo(mark) ? textOf(mark).trim() : undefined;
  if (char !== undefined && GROUP_CHARACTERS.has(char)) {
    const properties = [val('chr', char), val('pos', position), val('vertJc', position === 'top' ? 'bot' : 'top')];
    return withPr('groupChr', properties, [wrap('e', base)]);
  }
  const accent = char === undefined ? undefined : ACCENTS[char];
  const isAccent = el.getAttribute(position === 'top' ? 'accent' : 'accentunder') === 'true';
  // A stretched bar over an expression is a bar (\overline); any other accent mark over it an accent.
  const stretchedBar = char === '‾' && mark?.getAttribute('stretchy') === 'true';
  if (accent !== undefined && position === 'top' && (isAccent || !stretchedBar))
    return withPr('acc', [val('chr', accent)], [wrap('e', base)]);
  if (char === '‾' || char === '_' || char === '¯') return withPr('bar', [val('pos', position)], [wrap('e', base)]);
  const limit = mark ? sequence([mark]) : [];
  return node(position === 'top' ? 'limUpp' : 'limLow', [wrap('e', base), wrap('lim', limit)]);
}

/** mtable → m:m, one m:mc per column, aligned as the cells' classes or columnalign say. */
function matrix(rows: Element[]): OmmlElement {
  const cells = rows
    .filter((row) => nameOf(row) === 'mtr' || nameOf(row) === 'mlabeledtr')
    .map((row) => elements(row).filter((cell) => nameOf(cell) === 'mtd' && !isPadding(cell)));
  const columns = Math.max(1, ...cells.map((row) => row.length));
  const alignments = Array.from({ length: columns }, (_, c) => {
    const cell = cells.find((row) => row[c])?.[c];
    const align = `${cell?.getAttribute('class') ?? ''} ${cell?.getAttribute('columnalign') ?? ''}`;
    return /left/.test(align) ? 'left' : /right/.test(align) ? 'right' : 'center';
  });
  const mcs = alignments.map((jc) => node('mc', [node('mcPr', [val('count', '1'), val('mcJc', jc)])]));
  const properties = [val('baseJc', 'center'), val('plcHide', '1'), node('mcs', mcs)];
  const body = cells.map((row) =>
    node(
      'mr',
      Array.from({ length: columns }, (_, c) => {
        const cell = row[c];
        return wrap('e', cell ? sequence(elements(cell)) : []);
      }),
    ),
  );
  return withPr('m', properties, body.length > 0 ? body : [node('mr', [wrap('e', [])])]);
}

/**
 * Temml's `\\tag{…}`: a one-row table of the equation between an empty column and its tag. Written as the equation,
 * a space and the tag (a table in a table, which the tag's table would make of an aligned equation, LibreOffice
 * cannot show).
 */
function tagged(rows: Element[]): OmmlNode[] | undefined {
  const row = rows[0];
  if (rows.length !== 1 || !row || !/tml-tageqn/.test(row.getAttribute('class') ?? '')) return undefined;
  const cells = elements(row).filter((cell) => !isPadding(cell));
  const [content, tag] = cells;
  if (cells.length !== 2 || !content || !tag) return undefined;
  return [...sequence(elements(content)), ...run('\u2003', {}), ...sequence(elements(tag))];
}

/** Temml's empty side columns of a numbered or tagged display (width 50 %), which Word centres without. */
function isPadding(cell: Element): boolean {
  return /width:\s*50%/.test(cell.getAttribute('style') ?? '') && textOf(cell).trim() === '';
}

function enclosed(el: Element, content: OmmlNode[]): OmmlElement {
  const notations = new Set((el.getAttribute('notation') ?? 'longdiv').split(/\s+/));
  if (notations.size === 1 && (notations.has('top') || notations.has('bottom')))
    return withPr('bar', [val('pos', notations.has('top') ? 'top' : 'bot')], [wrap('e', content)]);
  const box = notations.has('box') || notations.has('roundedbox') || notations.has('circle');
  const properties = [
    ...(box ? [] : ['hideTop', 'hideBot', 'hideLeft', 'hideRight'].map((side) => val(side, '1'))),
    ...(notations.has('horizontalstrike') ? [val('strikeH', '1')] : []),
    ...(notations.has('verticalstrike') ? [val('strikeV', '1')] : []),
    ...(notations.has('updiagonalstrike') ? [val('strikeBLTR', '1')] : []),
    ...(notations.has('downdiagonalstrike') ? [val('strikeTLBR', '1')] : []),
  ];
  return withPr('borderBox', properties, [wrap('e', content)]);
}

/** mmultiscripts: pre-scripts → m:sPre (with the post-scripts on its base), post-scripts → m:sSubSup. */
function multiscripts(kids: Element[]): OmmlNode[] {
  const split = kids.findIndex((k) => nameOf(k) === 'mprescripts');
  const post = split < 0 ? kids.slice(1) : kids.slice(1, split);
  const pre = split < 0 ? [] : kids.slice(split + 1);
  const script = (el: Element | undefined): OmmlNode[] => (el && nameOf(el) !== 'none' ? sequence([el]) : []);
  const base = kids[0] ? sequence([kids[0]]) : [];
  const scripted =
    post.length > 0
      ? [node('sSubSup', [wrap('e', base), wrap('sub', script(post[0])), wrap('sup', script(post[1]))])]
      : base;
  if (pre.length === 0) return scripted;
  return [node('sPre', [wrap('sub', script(pre[0])), wrap('sup', script(pre[1])), wrap('e', scripted)])];
}

/** MathML (a `math` element, as temml writes it) → an m:oMath, or an m:oMathPara around it for display math. */
export function mathmlToOmml(mathml: string, display: boolean): OmmlElement {
  const doc = new DOMParser().parseFromString(mathml, 'application/xml');
  const root = doc.documentElement;
  if (root?.namespaceURI !== MATHML || nameOf(root) !== 'math') throw new Error('not MathML');
  const math = wrap('oMath', sequence(elements(root)));
  if (!display) return math;
  return withPr('oMathPara', [val('jc', 'center')], [math]);
}
