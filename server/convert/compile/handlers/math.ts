import type { FileChild, ParagraphChild } from 'docx';
import type { Code } from 'mdast';
import type { InlineMath, Math } from 'mdast-util-math';
import type { State } from '../state.ts';
import { numberedEquation } from '../captions.ts';
import { equation, numberedFormula, toOmml, unsupported } from '../equations.ts';

/** `$…$` (an m:oMath among the runs) or `$$…$$` in a paragraph (an m:oMathPara where it stands, as pandoc writes). */
export function inlineMath(state: State, node: InlineMath): ParagraphChild[] {
  const display = node.data?.display === true;
  const result = toOmml(state, node.value, display);
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
  const numbered = node.type === 'math' ? state.captions.of(node) : undefined;
  if (numbered) return [numberedEquation(state, numbered, numberedFormula(state, tex))];
  const result = toOmml(state, tex, true);
  if ('omml' in result) return [state.paragraph('paragraph', [equation(state, result.omml)])];
  unsupported(state, tex);
  const source = node.type === 'math' ? `$$${node.meta ? ` ${node.meta}` : ''}\n${node.value}\n$$` : node.value;
  return code(state, { type: 'code', lang: node.type === 'code' ? node.lang : null, meta: null, value: source });
}
