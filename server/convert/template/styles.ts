import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { childElements, W_NS, wChild } from './wordml.ts';

export type StyleType = 'paragraph' | 'character' | 'table' | 'numbering';

/** The most steps of a based-on chain followed (Word's own styles go a few deep; a template may chain thousands). */
export const MAX_BASED_ON = 32;

/**
 * A style's id, then its base styles' ids, nearest first (`basedOn` gives a style's w:basedOn): at most MAX_BASED_ON
 * of them, and a cycle ends the chain.
 */
export function* basedOnChain(id: string | undefined, basedOn: (id: string) => string | undefined): Generator<string> {
  const seen = new Set<string>();
  for (let at = id; at && !seen.has(at) && seen.size < MAX_BASED_ON; at = basedOn(at)) {
    seen.add(at);
    yield at;
  }
}

/** A style of a template as Word shows it: its name, id and type. */
export interface TemplateStyle {
  readonly id: string;
  readonly name: string;
  readonly type: StyleType;
  /** Alternative names Word accepts for the style (w:aliases). */
  readonly aliases: readonly string[];
  /** What the style itself says it looks like (not what it inherits); absent when it says none of it. */
  readonly look?: StyleLook;
}

/** The parts of a style's own definition that tell what it is for, where its name does not (auto-mapping.ts). */
export interface StyleLook {
  /** The id of the style it is based on (w:basedOn). */
  readonly basedOn?: string;
  /** Its outline level, 0 for a level-1 heading (w:outlineLvl). */
  readonly outlineLevel?: number;
  /** Its numbering's first level: bullets, numbers, or numbering turned off (w:numPr, w:numId 0). */
  readonly numbering?: 'bullet' | 'number' | 'none';
  /** Its Latin font (w:rFonts w:ascii). */
  readonly font?: string;
  /** Whether it is the default style of its type (w:default): Normal, whatever its name. */
  readonly isDefault?: boolean;
}

const TYPES = new Set<string>(['paragraph', 'character', 'table', 'numbering']);

const val = (el: Element | undefined): string | undefined => el?.getAttributeNS(W_NS, 'val') ?? undefined;

/** The number format of each numbering instance's levels, by numId then level (numbering.xml). */
function numberFormats(numbering: XmlDocument | undefined): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  if (!numbering) return out;
  const abstract = new Map<string, Map<string, string>>();
  const abstracts = numbering.getElementsByTagNameNS(W_NS, 'abstractNum');
  for (let i = 0; i < abstracts.length; i++) {
    const el = abstracts.item(i);
    const id = el?.getAttributeNS(W_NS, 'abstractNumId');
    if (!el || !id) continue;
    const levels = new Map<string, string>();
    for (const lvl of childElements(el))
      if (lvl.localName === 'lvl')
        levels.set(lvl.getAttributeNS(W_NS, 'ilvl') ?? '0', val(wChild(lvl, 'numFmt')) ?? '');
    abstract.set(id, levels);
  }
  const nums = numbering.getElementsByTagNameNS(W_NS, 'num');
  for (let i = 0; i < nums.length; i++) {
    const el = nums.item(i);
    const id = el?.getAttributeNS(W_NS, 'numId');
    const levels = abstract.get(val(wChild(el ?? undefined, 'abstractNumId')) ?? '');
    if (id && levels) out.set(id, levels);
  }
  return out;
}

/** What a w:style element says of itself (StyleLook), or undefined when nothing. */
function lookOf(el: Element, formats: Map<string, Map<string, string>>): StyleLook | undefined {
  const pPr = wChild(el, 'pPr');
  const numPr = wChild(pPr, 'numPr');
  const numId = val(wChild(numPr, 'numId'));
  const format = numId === undefined ? undefined : formats.get(numId)?.get(val(wChild(numPr, 'ilvl')) ?? '0');
  const outline = Number(val(wChild(pPr, 'outlineLvl')));
  const basedOn = val(wChild(el, 'basedOn'));
  const numbering =
    numId === '0' ? 'none' : format === undefined ? undefined : format === 'bullet' ? 'bullet' : 'number';
  const font = wChild(wChild(el, 'rPr'), 'rFonts')?.getAttributeNS(W_NS, 'ascii') || undefined;
  const look: StyleLook = {
    ...(basedOn ? { basedOn } : {}),
    ...(Number.isInteger(outline) && outline >= 0 && outline < 9 ? { outlineLevel: outline } : {}),
    ...(numbering ? { numbering } : {}),
    ...(font ? { font } : {}),
    ...(['1', 'true', 'on'].includes(el.getAttributeNS(W_NS, 'default') ?? '') ? { isDefault: true } : {}),
  };
  return Object.keys(look).length === 0 ? undefined : look;
}

/** Reads the styles of a parsed styles.xml (with numbering.xml, to tell a numbered style's bullets from numbers). */
export function readStyles(doc: XmlDocument, numbering?: XmlDocument): TemplateStyle[] {
  const formats = numberFormats(numbering);
  const out: TemplateStyle[] = [];
  const list = doc.getElementsByTagNameNS(W_NS, 'style');
  for (let i = 0; i < list.length; i++) {
    const el = list.item(i);
    if (!el) continue;
    const id = el.getAttributeNS(W_NS, 'styleId') ?? '';
    const type = el.getAttributeNS(W_NS, 'type') || 'paragraph';
    if (!id || !TYPES.has(type)) continue;
    const name = wChild(el, 'name')?.getAttributeNS(W_NS, 'val') || id;
    const aliases = (wChild(el, 'aliases')?.getAttributeNS(W_NS, 'val') ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
    const look = lookOf(el, formats);
    out.push({ id, name, type: type as StyleType, aliases, ...(look ? { look } : {}) });
  }
  return out;
}

const fold = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Finds a style the way Word does: by its name or an alias, ignoring case and extra spaces (Word's built-in names
 * such as "heading 1" are shown as "Heading 1"); a style id is accepted as a last resort.
 */
export function findStyle(styles: readonly TemplateStyle[], name: string): TemplateStyle | undefined {
  const exact = styles.find((s) => s.name === name);
  if (exact) return exact;
  const wanted = fold(name);
  return (
    styles.find((s) => fold(s.name) === wanted) ??
    styles.find((s) => s.aliases.some((a) => fold(a) === wanted)) ??
    styles.find((s) => s.id === name) ??
    styles.find((s) => fold(s.id) === wanted)
  );
}
