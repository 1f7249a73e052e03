// The template's own places for the title block: `{{title}}`-style placeholders and content controls (w:sdt) bound to
// the core properties (or named Title, Author …), as Word's cover pages and thesis templates have them. They are found
// in the template body that stays (document.ts) and filled, in the body, headers and footers, with the front matter's
// values. Templates are hostile input: DOM only, and at most MAX_FIELDS places per part are filled.
import type { Element, Node } from '@xmldom/xmldom';
import { TITLE_KEYS, type TitleKey } from '../mapping.ts';
import type { TitleValues } from '../compile/title-block.ts';
import { stripForbiddenXmlChars } from '../xml.ts';
import { children, descendants, isW, wAttr, wChild } from './dom.ts';
import { NS } from './namespaces.ts';

/** Most placeholders and content controls filled in one part. */
const MAX_FIELDS = 1000;

/** Placeholder text per key. */
const PLACEHOLDERS = new Map<string, TitleKey>(TITLE_KEYS.map((key) => [`{{${key}}}`, key]));
const PLACEHOLDER = /\{\{(title|subtitle|author|date)\}\}/g;
const HAS_PLACEHOLDER = /\{\{(title|subtitle|author|date)\}\}/;

/**
 * The key a content control stands for: by its data binding to a core (or cover page) property — Word's Title,
 * Subject, Author and Publish Date quick parts — else by its alias or tag.
 */
function controlKey(sdt: Element): TitleKey | undefined {
  const properties = wChild(sdt, 'sdtPr');
  if (!properties) return undefined;
  const xpath = wAttr(wChild(properties, 'dataBinding') ?? properties, 'xpath').toLowerCase();
  if (/:title\[1\]$/.test(xpath)) return 'title';
  if (/:subject\[1\]$/.test(xpath)) return 'subtitle';
  if (/:creator\[1\]$/.test(xpath)) return 'author';
  if (/:publishdate\[1\]$/.test(xpath)) return 'date';
  for (const name of ['alias', 'tag']) {
    const el = wChild(properties, name);
    const value = el ? wAttr(el, 'val').trim().toLowerCase() : '';
    if ((TITLE_KEYS as readonly string[]).includes(value)) return value as TitleKey;
  }
  return undefined;
}

/** The title block keys the template's kept body has a place for. */
export function titleFieldsIn(nodes: readonly Node[]): Set<TitleKey> {
  const found = new Set<TitleKey>();
  for (const node of nodes) {
    if (node.nodeType !== 1) continue;
    const el = node as Element;
    for (const sdt of [...(isW(el, 'sdt') ? [el] : []), ...descendants(el, NS.w, 'sdt')]) {
      const key = controlKey(sdt);
      if (key) found.add(key);
    }
    // A placeholder split over runs (Word splits text where editing stopped) is found by its paragraph's text.
    for (const p of [...(isW(el, 'p') ? [el] : []), ...descendants(el, NS.w, 'p')])
      for (const match of textOf(p).matchAll(PLACEHOLDER)) {
        const key = PLACEHOLDERS.get(match[0]);
        if (key) found.add(key);
      }
  }
  return found;
}

function textOf(p: Element): string {
  return descendants(p, NS.w, 't')
    .map((t) => t.textContent ?? '')
    .join('');
}

/** The text a key fills in: authors joined by commas; nothing when the front matter lacks it. */
function valueOf(values: TitleValues, key: TitleKey): string {
  return stripForbiddenXmlChars((values[key] ?? []).join(', '));
}

/** Replaces the placeholders of one paragraph, also when Word split one over several runs. */
function fillParagraph(p: Element, values: TitleValues): number {
  const ts = descendants(p, NS.w, 't');
  const texts = ts.map((t) => t.textContent ?? '');
  const whole = texts.join('');
  const matches = [...whole.matchAll(PLACEHOLDER)];
  // From the last match back, so earlier offsets stay valid.
  for (const match of matches.reverse()) {
    const key = PLACEHOLDERS.get(match[0]);
    if (!key) continue;
    let start = match.index;
    let end = start + match[0].length;
    let inserted = false;
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i] ?? '';
      if (end <= 0) break;
      if (start < text.length) {
        const from = Math.max(0, start);
        const to = Math.min(text.length, end);
        texts[i] = text.slice(0, from) + (inserted ? '' : valueOf(values, key)) + text.slice(to);
        inserted = true;
        // Later pieces of the placeholder are found at offset 0 of the following texts.
        start = 0;
        end -= to;
        if (end <= 0) break;
        continue;
      }
      start -= text.length;
      end -= text.length;
    }
  }
  ts.forEach((t, i) => {
    if (t.textContent !== texts[i]) {
      t.textContent = texts[i] ?? '';
      t.setAttributeNS('http://www.w3.org/XML/1998/namespace', 'xml:space', 'preserve');
    }
  });
  return matches.length;
}

/** Puts the value into a content control: its first run keeps its formatting and takes the text, the rest goes. */
function fillControl(sdt: Element, key: TitleKey, values: TitleValues): void {
  const properties = wChild(sdt, 'sdtPr');
  const content = wChild(sdt, 'sdtContent');
  if (!properties || !content) return;
  // No longer Word's grey placeholder text.
  const showing = wChild(properties, 'showingPlcHdr');
  if (showing) properties.removeChild(showing);
  // A binding to a part we do not write (the cover page's publish date) would bring the template's value back in Word.
  const binding = wChild(properties, 'dataBinding');
  if (binding && key === 'date') properties.removeChild(binding);
  const runs = descendants(content, NS.w, 'r').filter((r) => wChild(r, 't'));
  const first = runs[0];
  if (!first) return;
  for (const run of runs.slice(1)) run.parentNode?.removeChild(run);
  const t = wChild(first, 't');
  if (!t) return;
  for (const other of children(first)) if (other !== t && !isW(other, 'rPr')) first.removeChild(other);
  // The prompt's grey character style goes with the prompt.
  const style = wChild(wChild(first, 'rPr'), 'rStyle');
  if (style && wAttr(style, 'val') === 'PlaceholderText') style.parentNode?.removeChild(style);
  t.textContent = valueOf(values, key);
  t.setAttributeNS('http://www.w3.org/XML/1998/namespace', 'xml:space', 'preserve');
  // A block-level control keeps one paragraph: the one holding the text.
  let holder: Node = first;
  while (holder.parentNode && holder.parentNode !== content) holder = holder.parentNode;
  for (const p of children(content)) if (isW(p, 'p') && p !== holder) content.removeChild(p);
}

/**
 * Fills the placeholders and content controls among `nodes` (the template's, never our content: a user's markdown may
 * hold `{{title}}` as text). Returns true when something was filled.
 */
export function fillTitleFields(nodes: readonly Element[], values: TitleValues): boolean {
  let filled = 0;
  for (const el of nodes) {
    for (const sdt of [...(isW(el, 'sdt') ? [el] : []), ...descendants(el, NS.w, 'sdt')]) {
      if (filled >= MAX_FIELDS) return true;
      const key = controlKey(sdt);
      // Without a value the control keeps the template's prompt (or the bound property).
      if (!key || !values[key]) continue;
      fillControl(sdt, key, values);
      filled++;
    }
    for (const p of [...(isW(el, 'p') ? [el] : []), ...descendants(el, NS.w, 'p')]) {
      if (filled >= MAX_FIELDS) return true;
      if (HAS_PLACEHOLDER.test(textOf(p))) filled += fillParagraph(p, values);
    }
  }
  return filled > 0;
}
