import type { Element } from 'hast';
import { defaultHandlers, type Handle } from 'hast-util-to-mdast';
import type { Nodes, Parents, Root } from 'mdast';
import { Tokenizer, type TokenHandler } from 'parse5';
import { setNodeDirection, type Direction } from '../bidi.ts';

/** Elements that never have an end tag: they open nothing. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

/** An open element of block HTML and the direction it sets, if any. */
interface OpenElement {
  tag: string;
  direction: Direction | undefined;
}

function directionOf(value: string | null | undefined): Direction | undefined {
  const dir = value?.trim().toLowerCase();
  return dir === 'rtl' || dir === 'ltr' ? dir : undefined;
}

/** Follows the start and end tags of one piece of HTML (parse5's tokenizer), updating the stack of open elements. */
function follow(html: string, open: OpenElement[]): void {
  const ignore = (): void => undefined;
  const handler: TokenHandler = {
    onStartTag(token) {
      const tag = token.tagName;
      if (token.selfClosing || VOID.has(tag)) return;
      const dir = token.attrs.find((attr) => attr.name === 'dir')?.value;
      open.push({ tag, direction: directionOf(dir) });
    },
    onEndTag(token) {
      const index = open.map((e) => e.tag).lastIndexOf(token.tagName);
      // A stray end tag closes nothing, as in a browser.
      if (index >= 0) open.length = index;
    },
    onComment: ignore,
    onDoctype: ignore,
    onEof: ignore,
    onCharacter: ignore,
    onNullCharacter: ignore,
    onWhitespaceCharacter: ignore,
    onParseError: ignore,
  };
  new Tokenizer({ sourceCodeLocationInfo: false }, handler).write(html, true);
}

/** The innermost direction the open elements set. */
function current(open: readonly OpenElement[]): Direction | undefined {
  for (let i = open.length - 1; i >= 0; i--) {
    const direction = open[i]?.direction;
    if (direction) return direction;
  }
  return undefined;
}

/**
 * Block HTML split around markdown (`<div dir="rtl">`, blank line, markdown, `</div>`): the markdown between the
 * open and close tags gets the element's direction. Runs before raw HTML is converted, without recursion; a node
 * already marked keeps its own.
 */
export function markSpanningDirections(tree: Root): void {
  const stack: Parents[] = [tree];
  for (let parent = stack.pop(); parent; parent = stack.pop()) {
    if (parent.type === 'paragraph' || parent.type === 'heading') continue;
    const open: OpenElement[] = [];
    for (const child of parent.children as Nodes[]) {
      if (child.type === 'html') {
        follow(child.value, open);
        continue;
      }
      const direction = current(open);
      if (direction) setNodeDirection(child, direction);
      if ('children' in child) stack.push(child);
    }
  }
}

/** Marks the mdast made from an element with the direction of its `dir` attribute. */
function marked(handle: Handle): Handle {
  return (state, node: Element, parent) => {
    const result = handle(state, node, parent) as Nodes | Nodes[] | undefined;
    const direction = directionOf(typeof node.properties.dir === 'string' ? node.properties.dir : undefined);
    if (direction && result)
      for (const made of Array.isArray(result) ? result : [result]) setNodeDirection(made, direction);
    return result;
  };
}

/** hast-util-to-mdast's handlers, each keeping the `dir` of its element on what it makes. */
export const directionHandlers: Record<string, Handle> = Object.fromEntries(
  Object.entries(defaultHandlers as Record<string, Handle>).map(([tag, handle]) => [tag, marked(handle)]),
);
