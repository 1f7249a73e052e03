import type { ParagraphChild } from 'docx';
import type { Span } from '../../parse/attributes.ts';
import { isLanguageTag, type State } from '../state.ts';

/**
 * A bracketed span: its runs in the template's character style `custom-style` names (by name or id; a missing one is
 * warned `missing_style` and the runs kept as they are). Other attributes are warned.
 */
export function span(state: State, node: Span): ParagraphChild[] {
  let style: string | undefined;
  let lang: string | undefined;
  for (const [key, value] of node.attributes.pairs) {
    if (key === 'lang' && isLanguageTag(value)) lang = value;
    else if (key !== 'custom-style') state.warn(`attribute_ignored: ${key}=${value} on a span`);
    else {
      style = state.templateStyle(value, 'character');
      if (style === undefined) state.warn(`missing_style: ${value}`);
    }
  }
  if (node.attributes.id !== undefined) state.warn(`attribute_ignored: #${node.attributes.id} on a span`);
  for (const name of node.attributes.classes) state.warn(`attribute_ignored: .${name} on a span`);
  const extra = { ...(style === undefined ? {} : { customStyle: style }), ...(lang === undefined ? {} : { lang }) };
  return state.withInline(extra, () => state.inlines(node.children));
}
