import { ExternalHyperlink, type ParagraphChild } from 'docx';
import type { Link, LinkReference, PhrasingContent } from 'mdast';
import type { State } from '../state.ts';
import { stripForbiddenXmlChars } from '../../xml.ts';
import { unsafeLinkScheme } from '../link-scheme.ts';
import { internalLink } from '../anchors.ts';

/** Makes a URL safe as a relationship target: spaces and other characters URIs forbid are percent-encoded. */
export function safeTarget(url: string): string {
  return stripForbiddenXmlChars(url)
    .trim()
    .replace(/[\s"<>\\^`{|}\u0080-\uFFFF]/gu, (c) => encodeURIComponent(c));
}

function hyperlink(state: State, url: string, children: PhrasingContent[]): ParagraphChild[] {
  const unsafe = unsafeLinkScheme(url);
  if (unsafe !== undefined) {
    // javascript:, file:, a relative path …: the text stays, without the link or its hyperlink style.
    state.warn(`unsafe_link: ${unsafe}`);
    return state.inlines(children);
  }
  const fragment = /^\s*#(.+)$/s.exec(url)?.[1]?.trim();
  if (fragment)
    return internalLink(
      state.anchors,
      fragment,
      () => state.withInline({ link: true }, () => state.inlines(children)),
      () => state.inlines(children),
      (warning) => {
        state.warn(warning);
      },
    );
  const runs = state.withInline({ link: true }, () => state.inlines(children));
  const target = safeTarget(url);
  // An empty link (or a bare `#`) has no target: its text stays.
  if (!target || target.startsWith('#')) return runs;
  if (runs.length === 0) return [];
  state.countLinkTarget(target);
  return [new ExternalHyperlink({ link: target, children: runs })];
}

/** A link (also autolinks and bare URLs of GFM) as a real hyperlink: an external relationship (safe schemes only). */
export function link(state: State, node: Link): ParagraphChild[] {
  const attributes = node.data?.attributes;
  // pandoc's link attributes have no counterpart on a Word hyperlink: read (not printed), and named.
  if (attributes) {
    if (attributes.id !== undefined) state.warn(`attribute_ignored: #${attributes.id} on a link`);
    for (const name of attributes.classes) state.warn(`attribute_ignored: .${name} on a link`);
    for (const [key] of attributes.pairs) state.warn(`attribute_ignored: ${key} on a link`);
  }
  return hyperlink(state, node.url, node.children);
}

/** A reference-style link, resolved through its definition; unresolved ones keep their text. */
export function linkReference(state: State, node: LinkReference): ParagraphChild[] {
  const definition = state.definitions.get(node.identifier.toLowerCase());
  if (!definition) return state.inlines(node.children);
  return hyperlink(state, definition.url, node.children);
}
