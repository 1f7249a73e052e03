/** A piece of formatted citation text and the formatting CSL gives it. */
export interface CslRun {
  text: string;
  italics?: boolean;
  bold?: boolean;
  smallCaps?: boolean;
  superScript?: boolean;
  subScript?: boolean;
}

type Look = Omit<CslRun, 'text'>;

/** What each of citeproc-js's HTML tags (and its inline styles) sets; a tag not here changes nothing. */
function lookOf(tag: string, attributes: string): Look {
  switch (tag) {
    case 'i':
    case 'em':
      return { italics: true };
    case 'b':
    case 'strong':
      return { bold: true };
    case 'sup':
      return { superScript: true };
    case 'sub':
      return { subScript: true };
    case 'span': {
      const style = /style="([^"]*)"/.exec(attributes)?.[1] ?? '';
      const look: Look = {};
      if (/font-style:\s*italic/.test(style)) look.italics = true;
      if (/font-style:\s*normal/.test(style)) look.italics = false;
      if (/font-weight:\s*bold/.test(style)) look.bold = true;
      if (/font-weight:\s*normal/.test(style)) look.bold = false;
      if (/font-variant:\s*small-caps/.test(style)) look.smallCaps = true;
      if (/font-variant:\s*normal/.test(style)) look.smallCaps = false;
      if (/vertical-align:\s*sup/.test(style)) look.superScript = true;
      if (/vertical-align:\s*sub/.test(style)) look.subScript = true;
      return look;
    }
    default:
      return {};
  }
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Text with HTML's character references decoded (the ones citeproc-js writes, and numeric ones). */
function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/**
 * citeproc-js's HTML output as runs: `<i>`, `<b>`, `<sup>`, `<sub>` and the inline styles of `<span>` (a title's
 * `font-style:normal` inside italics, small caps) as formatting; a numeric bibliography's label (`csl-left-margin`)
 * followed by a tab; other tags (links, divs) give their text. Line breaks and the indentation between tags are dropped.
 */
export function cslRuns(html: string): CslRun[] {
  const runs: CslRun[] = [];
  const stack: { tag: string; look: Look; label?: boolean }[] = [];
  const current = (): Look => Object.assign({}, ...stack.map((entry) => entry.look)) as Look;
  const push = (text: string) => {
    if (text === '') return;
    const look = current();
    const last = runs.at(-1);
    const same =
      last &&
      (['italics', 'bold', 'smallCaps', 'superScript', 'subScript'] as const).every(
        (key) => (last[key] ?? false) === (look[key] ?? false),
      );
    if (last && same) last.text += text;
    else runs.push({ text, ...Object.fromEntries(Object.entries(look).filter(([, on]) => on)) });
  };
  for (const part of html.trim().split(/(<[^>]*>)/)) {
    const tag = /^<(\/?)([a-z][a-z0-9]*)([^>]*)>$/i.exec(part);
    if (!tag) {
      // The whitespace between citeproc-js's divs is its layout, not text.
      push(decode(part.replace(/\s*\n\s*/g, '')));
      continue;
    }
    const [, closing, rawName = '', attributes = ''] = tag;
    const name = rawName.toLowerCase();
    if (closing) {
      const at = stack.map((entry) => entry.tag).lastIndexOf(name);
      if (at < 0) continue;
      const label = stack[at]?.label === true;
      stack.splice(at);
      if (label) push('\t');
      continue;
    }
    if (name === 'br') {
      push(' ');
      continue;
    }
    const label = name === 'div' && /csl-left-margin/.test(attributes);
    stack.push({ tag: name, look: lookOf(name, attributes), ...(label ? { label } : {}) });
  }
  return runs;
}
