import type { Element, ElementContent, Nodes as HastNodes, Root as HastRoot, Text } from 'hast';
import type { Handle } from 'hast-util-to-mdast';
import { anchorMark, htmlAnchorName } from './html-anchors.ts';

/**
 * Runs of empty HTML anchors (a legacy page's `<a name>` targets, one per line; Word's `<sup><a name=_ftnref1>`)
 * made hast-util-to-mdast's whitespace minifying quadratic: for every node of a run it looks past the rest of the run
 * for the next boundary (1,000 anchors: 5 s; 3,000: about a minute). A run of sibling nodes that print nothing but
 * anchors and whitespace becomes one element standing for all its anchors plus one text node holding all its
 * whitespace (which collapses to the same single space, or none, as before). The anchors keep their order; a
 * bookmark may move across that one space, which nobody can see.
 */

export const ANCHOR_GROUP = 'docwright-anchors';

/** Inline elements that print nothing of their own: a run may swallow them when they hold only anchors. */
const WRAPPERS = new Set(['span', 'sup', 'sub', 'b', 'i', 'em', 'strong', 'u', 's', 'small', 'big', 'font', 'mark']);

interface Found {
  names: string[];
  whitespace: string;
}

/** True when a node prints nothing but anchors and whitespace, which it adds to `into`. */
function anchorsOnly(node: HastNodes, into: Found): boolean {
  if (node.type === 'comment') return true;
  if (node.type === 'text') {
    if (node.value.trim() !== '') return false;
    into.whitespace += node.value;
    return true;
  }
  if (node.type !== 'element') return false;
  let name: string | undefined;
  if (node.tagName === 'a') {
    const href = node.properties.href;
    if (typeof href === 'string' && href !== '') return false;
    name = htmlAnchorName(node);
    if (name === undefined) return false;
    into.names.push(name);
  } else if (!WRAPPERS.has(node.tagName)) return false;
  return node.children.every((child) => anchorsOnly(child, into));
}

/** Replaces every run of two or more anchors (with whitespace between) by one group; returns the groups' names. */
export function groupAnchorRuns(tree: HastRoot): string[][] {
  const groups: string[][] = [];
  const stack: (HastRoot | Element)[] = [tree];
  for (let parent = stack.pop(); parent; parent = stack.pop()) {
    const out: HastRoot['children'] = [];
    const kids = parent.children;
    let changed = false;
    for (let i = 0; i < kids.length;) {
      const found: Found = { names: [], whitespace: '' };
      let end = i;
      for (; end < kids.length; end++) {
        const one: Found = { names: [], whitespace: '' };
        if (!anchorsOnly(kids[end] as HastNodes, one)) break;
        found.names.push(...one.names);
        found.whitespace += one.whitespace;
      }
      if (found.names.length >= 2) {
        // By index: hast-util-to-mdast works on a copy of the tree.
        const group: Element = {
          type: 'element',
          tagName: ANCHOR_GROUP,
          properties: { dataI: groups.length },
          children: [],
        };
        groups.push(found.names);
        const space: Text | undefined = found.whitespace ? { type: 'text', value: found.whitespace } : undefined;
        // The whitespace stays where the run's first whitespace was: before the anchors when the run starts with it.
        if (space && kids[i]?.type === 'text') out.push(space, group);
        else out.push(group, ...(space ? [space] : []));
        changed = true;
        i = end;
        continue;
      }
      // Not a run worth grouping: its nodes stay as they are, their elements walked too.
      const stop = Math.max(end, i + 1);
      for (; i < stop; i++) {
        const node = kids[i] as (typeof kids)[number];
        out.push(node);
        if (node.type === 'element') stack.push(node);
      }
    }
    if (changed) {
      if (parent.type === 'root') parent.children = out;
      else parent.children = out.filter((node): node is ElementContent => node.type !== 'doctype');
    }
  }
  return groups;
}

/** The hast-util-to-mdast handler of a group: the anchor of every name, in order. */
export function anchorGroupHandler(groups: readonly (readonly string[])[]): Handle {
  return (_state, node: Element) => (groups[Number(node.properties.dataI)] ?? []).map(anchorMark);
}
