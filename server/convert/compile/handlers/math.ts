import { DOMParser, type Element } from '@xmldom/xmldom';
import { ImportedXmlComponent, type FileChild, type ParagraphChild } from 'docx';
import type { Code } from 'mdast';
import type { InlineMath, Math } from 'mdast-util-math';
import { texToOmml } from '../../math/index.ts';
import type { State } from '../state.ts';

/** Structures that rise above a line of text: fractions, n-ary operators, matrices, roots, limits, braces. */
const TALL = /<m:(f|nary|m|rad|limLow|limUpp|groupChr|eqArr|oMathPara)>/;

/** How much of a formula a warning quotes. */
const QUOTED = 40;

const M = 'http://schemas.openxmlformats.org/officeDocument/2006/math';

/** An element of the OMML as docx's component, its text as it is (spaces too). */
function component(el: Element): ImportedXmlComponent {
  const attributes: Record<string, string> = {};
  for (let k = 0; k < el.attributes.length; k++) {
    const attribute = el.attributes.item(k);
    if (attribute && !attribute.name.startsWith('xmlns')) attributes[attribute.name] = attribute.value;
  }
  const made = new ImportedXmlComponent(el.nodeName, Object.keys(attributes).length > 0 ? attributes : undefined);
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1) made.push(component(n as Element));
    else if (n.nodeType === 3 && n.nodeValue) made.push(n.nodeValue);
  }
  return made;
}

/**
 * The equation as docx content. docx's own math classes cannot write matrices, accents, braces or equation arrays,
 * so the OMML goes in as docx's public ImportedXmlComponent: one path for every formula, written where it stands by
 * docx like any run (the m: prefix is docx's, which the package step declares where the body uses it). Built element
 * by element, as fromXmlString drops text of white space alone (the thin space of `a\,b`).
 */
function equation(state: State, omml: string): ParagraphChild {
  const doc = new DOMParser().parseFromString(`<m:x xmlns:m="${M}">${omml}</m:x>`, 'application/xml');
  const root = doc.documentElement?.firstChild;
  if (root?.nodeType !== 1) throw new Error('the OMML has no element');
  const made = component(root as Element) as unknown as ParagraphChild;
  if (TALL.test(omml)) state.tallEquations.add(made);
  return made;
}

/** Warns that a formula stays TeX (temml refused it), quoting its start. */
function unsupported(state: State, tex: string): void {
  const quoted = Array.from(tex.replace(/\s+/g, ' ').trim()).slice(0, QUOTED).join('');
  state.warn(`math_unsupported: ${quoted}`);
}

/** `$…$` (an m:oMath among the runs) or `$$…$$` in a paragraph (an m:oMathPara where it stands, as pandoc writes). */
export function inlineMath(state: State, node: InlineMath): ParagraphChild[] {
  const display = node.data?.display === true;
  const result = texToOmml(node.value, display);
  if ('omml' in result) return [equation(state, result.omml)];
  unsupported(state, node.value);
  const dollars = display ? '$$' : '$';
  return state.withInline({ code: true }, () => [state.run(`${dollars}${node.value}${dollars}`)]);
}

/**
 * A `$$` fence (or a ```` ```math ```` fence when the mapping asks for it): a paragraph of its own holding an
 * m:oMathPara; TeX that cannot be converted stays as written, a code block.
 */
export function math(state: State, node: Math | Code, code: (state: State, node: Code) => FileChild[]): FileChild[] {
  const tex = node.type === 'math' && node.meta ? `${node.meta}\n${node.value}` : node.value;
  const result = texToOmml(tex, true);
  if ('omml' in result) return [state.paragraph('paragraph', [equation(state, result.omml)])];
  unsupported(state, tex);
  const source = node.type === 'math' ? `$$${node.meta ? ` ${node.meta}` : ''}\n${node.value}\n$$` : node.value;
  return code(state, { type: 'code', lang: node.type === 'code' ? node.lang : null, meta: null, value: source });
}
