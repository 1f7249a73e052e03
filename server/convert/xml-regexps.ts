// @xmldom/xmldom's parser builds a new RegExp from the same parts at every end tag (grammar.reg, a string join and
// a compile): a quarter of parsing a long part. Its regexps carry no state (no g or y flag), so the one built for a
// list of parts is kept and returned again. Importing this module changes nothing: the engine's entry points
// (convert, readTemplate) call rememberXmlRegexps() first.
import grammar from '@xmldom/xmldom/lib/grammar.js';

interface Trie {
  next: Map<RegExp | string, Trie>;
  regexp?: RegExp;
}

const original = grammar.reg;
const root: Trie = { next: new Map() };

/** grammar.reg, remembered per list of parts (each part by identity, strings by value). */
function rememberedReg(this: unknown, ...parts: (RegExp | string)[]): RegExp {
  let node = root;
  for (const part of parts) {
    let child = node.next.get(part);
    if (!child) {
      child = { next: new Map() };
      node.next.set(part, child);
    }
    node = child;
  }
  node.regexp ??= original.apply(this, parts);
  return node.regexp;
}

/**
 * Makes xmldom keep the regexps it builds (once per process; again, nothing). Only the time of parsing changes: the
 * regexps are the same, so is every document parsed (test/convert/xml-regexps.test.ts).
 */
export function rememberXmlRegexps(): void {
  if (typeof original === 'function' && original.name !== 'rememberedReg') grammar.reg = rememberedReg;
}
