import { ImportedXmlComponent, type ParagraphChild } from 'docx';
import type { MathResult, OmmlElement } from '../math/index.ts';
import { docxText } from '../braces.ts';
import type { State } from './state.ts';
import { equationTex } from './captions.ts';

// Formulas as Word equations (OMML through docx's public ImportedXmlComponent), shared by the math handlers and the
// paragraph that holds a numbered equation (handlers/math.ts, handlers/paragraph.ts).

/** Structures that rise above a line of text: fractions, n-ary operators, matrices, roots, limits, braces. */
const TALL = new Set(
  ['f', 'nary', 'm', 'rad', 'limLow', 'limUpp', 'groupChr', 'eqArr', 'oMathPara'].map((name) => `m:${name}`),
);

/** How much of a formula a warning quotes. */
const QUOTED = 40;

/**
 * An OMML element as docx's component (docx's public ImportedXmlComponent), its text as it is (spaces too) but as
 * every run's text is written: without the characters XML forbids (`\char"FFFE` makes one) and with its braces
 * escaped (docx reads `{bullet-1}` in the text as its own placeholder): docxText.
 */
function component(el: OmmlElement): ImportedXmlComponent {
  const made = new ImportedXmlComponent(el.name, el.attributes);
  for (const child of el.children) made.push(typeof child === 'string' ? docxText(child) : component(child));
  return made;
}

/** Whether the OMML holds a structure that rises above a line of text (see TALL). */
function isTall(el: OmmlElement): boolean {
  return TALL.has(el.name) || el.children.some((child) => typeof child !== 'string' && isTall(child));
}

/**
 * The equation as docx content. docx's own math classes cannot write matrices, accents, braces or equation arrays,
 * so the OMML goes in as docx's public ImportedXmlComponent: one path for every formula, written where it stands by
 * docx like any run (the m: prefix is docx's, which the package step declares where the body uses it). Built element
 * by element from the converter's tree (fromXmlString would parse text again, and drops text of white space alone).
 */
export function equation(state: State, omml: OmmlElement): ParagraphChild {
  const made = component(omml) as unknown as ParagraphChild;
  if (isTall(omml)) state.tallEquations.add(made);
  return made;
}

/**
 * The formula's OMML: the converter is loaded by convert() only for a document that has math (math/index.ts and
 * temml, ~0.5 MB of code a document without formulas never loads); without it the formula stays TeX, warned.
 */
export function toOmml(state: State, tex: string, display: boolean): MathResult {
  return state.texToOmml ? state.texToOmml(tex, display) : { error: 'no math converter' };
}

/** Warns that a formula stays TeX (temml refused it), quoting its start. */
export function unsupported(state: State, tex: string): void {
  const quoted = Array.from(tex.replace(/\s+/g, ' ').trim()).slice(0, QUOTED).join('');
  state.warn(`math_unsupported: ${quoted}`);
}

/**
 * The formula of a numbered equation (`{#eq:label}`): inline math in display style, sharing its line with the number
 * (captions.ts); TeX that cannot be converted stays as written, in code's font, warned.
 */
export function numberedFormula(state: State, tex: string): ParagraphChild[] {
  const result = toOmml(state, equationTex(tex), false);
  if ('omml' in result) return [equation(state, result.omml)];
  unsupported(state, tex);
  return state.withInline({ code: true }, () => [state.run(`$$${tex}$$`)]);
}
