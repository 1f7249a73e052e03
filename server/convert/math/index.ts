// TeX → Word equations (issue 33): temml (TeX → MathML) then omml.ts (MathML → OMML). Math is input the user did not
// check (it may come from anyone through the API): temml's limits are set, and anything temml refuses or that
// overflows the stack is reported, never thrown, so the caller can keep the TeX as written.
import temml from 'temml';
import { mathmlToOmml, type OmmlElement } from './omml.ts';

export { ommlXml, type OmmlElement, type OmmlNode } from './omml.ts';

/** Temml's limits: the largest size (em) a `\rule` or a space may ask for, and macro expansions per formula. */
const TEMML_LIMITS = { maxSize: [40, 40] as [number, number], maxExpand: 500 };

/**
 * The deepest an equation's OMML may nest (elements inside elements): \frac inside \frac 80 deep. A formula nested
 * past it stays its TeX (warned): a .docx nesting 4,000 deep is one LibreOffice cannot open (the attack review), and
 * Word's own limits are far below that.
 */
export const MAX_OMML_DEPTH = 160;

/** How deep an OMML element nests (itself 1), walked without recursion. */
function depthOf(root: OmmlElement): number {
  let deepest = 0;
  const stack: [OmmlElement, number][] = [[root, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [el, depth] = item;
    if (depth > deepest) deepest = depth;
    for (const child of el.children) if (typeof child !== 'string') stack.push([child, depth + 1]);
  }
  return deepest;
}

/** The OMML of a formula, or why it could not be made. */
export type MathResult = { omml: OmmlElement } | { error: string };

/** TeX (without its dollars) → an m:oMath (inline) or an m:oMathPara (display); `ommlXml` writes it as text. */
export function texToOmml(tex: string, display: boolean): MathResult {
  try {
    const mathml = temml.renderToString(tex, {
      displayMode: display,
      throwOnError: true,
      annotate: false,
      xml: true,
      trust: false,
      ...TEMML_LIMITS,
    });
    const omml = mathmlToOmml(mathml, display);
    if (depthOf(omml) > MAX_OMML_DEPTH) return { error: `it nests more than ${String(MAX_OMML_DEPTH)} deep` };
    return { omml };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
