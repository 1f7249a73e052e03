import type { List, ListItem, Nodes, Paragraph, Parents, Root } from 'mdast';
import { MAX_LIST_LEVELS } from '../word-limits.ts';

/** Lists deeper than this are hoisted: they render at the last list level anyway. */
const MAX_LIST_NESTING = MAX_LIST_LEVELS + 1;
/** Quotes deeper than this are merged into their parent: they are indented like it anyway. */
const MAX_QUOTE_NESTING = 8;
/** Inline formatting deeper than this is merged into its parent (its formatting is already applied). */
const MAX_INLINE_NESTING = 32;
/** Containers of any kind (quotes and lists mixed) deeper than this are merged into their parent. */
const MAX_BLOCK_NESTING = 48;

const INLINE_CONTAINERS = new Set(['emphasis', 'strong', 'delete', 'link', 'linkReference']);

/**
 * Bounds the nesting of the tree so the recursive compiler cannot overflow the stack, keeping what a reader sees:
 * lists below the deepest rendered level become following items of the deepest list, quotes past the deepest
 * indentation merge into their parent, and over-deep inline formatting is merged. Works in place, without recursion.
 */
export function boundNesting(tree: Root): void {
  const stack: { node: Parents; lists: number; quotes: number; inline: number; depth: number }[] = [
    { node: tree, lists: 0, quotes: 0, inline: 0, depth: 0 },
  ];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { node, lists, quotes, inline, depth } = entry;
    const children = node.children as Nodes[];
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Nodes;
      if (!('children' in child)) continue;
      if (child.type === 'blockquote' && (quotes >= MAX_QUOTE_NESTING || depth >= MAX_BLOCK_NESTING)) {
        children.splice(i, 1, ...(child.children as Nodes[]));
        i -= 1;
        continue;
      }
      // Quotes and lists nested in turn: past the limit a list's items merge into the item that holds it.
      if (child.type === 'list' && node.type !== 'root' && depth >= MAX_BLOCK_NESTING) {
        children.splice(i, 1, ...child.children.flatMap((item) => item.children as Nodes[]));
        i -= 1;
        continue;
      }
      // A definition list (pandoc's dialect) as deep: its terms become paragraphs, its definitions' blocks stay.
      if (isDefinitionList(child) && depth >= MAX_BLOCK_NESTING) {
        children.splice(i, 1, ...definitionListBlocks(child));
        i -= 1;
        continue;
      }
      if (INLINE_CONTAINERS.has(child.type) && inline >= MAX_INLINE_NESTING) {
        children.splice(i, 1, ...(child.children as Nodes[]));
        i -= 1;
        continue;
      }
      if (child.type === 'listItem' && lists >= MAX_LIST_NESTING && node.type === 'list') {
        hoistNestedLists(node, i);
      }
      stack.push({
        node: child,
        lists: child.type === 'list' ? lists + 1 : lists,
        quotes: child.type === 'blockquote' ? quotes + 1 : quotes,
        inline: INLINE_CONTAINERS.has(child.type) ? inline + 1 : inline,
        depth: child.type === 'blockquote' || child.type === 'list' || isDefinitionList(child) ? depth + 1 : depth,
      });
    }
  }
}

/** A definition list of mdast-util-definition-list: terms (phrasing) and definitions (blocks). */
interface DefinitionList {
  type: 'defList';
  children: { type: string; children: Nodes[] }[];
}

/** Whether a node is a definition list (not in mdast's types: compile/handlers/definition-list.ts). */
function isDefinitionList(node: Nodes): node is Nodes & DefinitionList {
  return (node as { type: string }).type === 'defList';
}

/** A definition list's content as blocks: each term a paragraph, each definition's blocks. */
function definitionListBlocks(list: DefinitionList): Nodes[] {
  return list.children.flatMap((child): Nodes[] =>
    child.type === 'defListTerm'
      ? [{ type: 'paragraph', children: child.children as Paragraph['children'] }]
      : child.children,
  );
}

/** Moves the items of lists nested in `list.children[index]` right after it, in the same (deepest) list. */
function hoistNestedLists(list: List, index: number): void {
  const item = list.children[index] as ListItem;
  const kept: ListItem['children'] = [];
  const hoisted: ListItem[] = [];
  for (const block of item.children) {
    if (block.type === 'list') hoisted.push(...block.children);
    else if (hoisted.length === 0) kept.push(block);
    else {
      // A block after a nested list belongs to the item; it follows the hoisted items as an item of its own.
      hoisted.push({ type: 'listItem', spread: false, children: [block] });
    }
  }
  if (hoisted.length === 0) return;
  item.children = kept;
  list.children.splice(index + 1, 0, ...hoisted);
}
