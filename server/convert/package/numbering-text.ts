// The list numbering merged as text: docx's abstract numberings and list instances are written straight from its
// prepared objects (as body-stream.ts writes the body) and set into the template's numbering part where the DOM
// merge (numbering.ts's mergeNumberingSites) would insert them, with the same ids, namespaces and bytes
// (test/convert/optimisations.test.ts compares both ways on every fixture and corpus document and template). It saves
// building docx's numbering as a DOM, moving it into the template's and serialising it all: 2.9 → 1.5 ms of a 9 KB
// conversion's 20 (docs/performance.md, "The seventh round"). Anything it does not know gives the DOM merge the work.
import type { Document as XmlDocument } from '@xmldom/xmldom';
import { attributeValue, encodeText, firstKey, resolved, TextItem, textOf, Unsupported } from './body-stream.ts';
import { parsePart, withDeclaration } from './dom.ts';
import { declaredOn, declareNamespaces, NS } from './namespaces.ts';
import { insertionPoints, planNumbering, type NumberingSite } from './numbering.ts';
import { attributeText, serializeAroundAll } from './serialize.ts';

/** Where an id is decided later in a definition's text (no value holds it: docx drops control characters). */
const HOLE = '\u0001';

/** One of docx's definitions (w:abstractNum, w:num) as text, its renumbered id (and reference) left as holes. */
interface Definition {
  /** The text split at its holes: the id, then (a w:num) its w:abstractNumId's value. */
  pieces: string[];
  /** The values the holes had, as the serialiser writes them (a w:num's reference kept when it is not renumbered). */
  values: string[];
  /** The namespaces it uses (prefix → URI), first use first. */
  used: Map<string, string>;
  /** A w:num's w:lvlOverride children, each as text with the namespaces it uses. */
  overrides: { text: string; used: Map<string, string> }[];
}

/** docx's numbering part as text, ready to merge (generatedNumberingText). */
export interface GeneratedNumberingText {
  abstracts: Map<string, Definition>;
  nums: Map<string, Definition & { abstractRef: string }>;
}

/**
 * docx's numbering part (its prepared object) as text, or undefined where this writer does not know its shape (the
 * DOM merge then takes it: whatever this writes, numbering.ts's DOM of it can be built too).
 */
export function generatedNumberingText(prepared: unknown): GeneratedNumberingText | undefined {
  try {
    if (typeof prepared !== 'object' || prepared === null) return undefined;
    const root = resolved(prepared);
    if (root?.name !== 'w:numbering') return undefined;
    const scope = new Map<string, string>();
    for (const [key, value] of root.attributes ?? []) {
      if (key === 'xmlns') return undefined;
      if (key.startsWith('xmlns:')) scope.set(key.slice(6), attributeValue(value));
    }
    if (scope.get('w') !== NS.w) return undefined;
    const out: GeneratedNumberingText = { abstracts: new Map(), nums: new Map() };
    for (const item of root.content ?? []) {
      if (item === '' || item === undefined) continue;
      if (item instanceof TextItem) {
        if (textOf(item.value) === '') continue;
        return undefined;
      }
      const name = firstKey(item as object);
      if (name === 'w:abstractNum') {
        const written = writeDefinition(item as object, scope, 'w:abstractNumId', false);
        // A repeated id: the DOM merge keeps the last definition in the first one's place (a Map by id).
        out.abstracts.set(written.id, written.definition);
      } else if (name === 'w:num') {
        const written = writeDefinition(item as object, scope, 'w:numId', true);
        out.nums.set(written.id, { ...written.definition, abstractRef: written.reference ?? '' });
      } else return undefined;
    }
    return out;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/** A definition written as the DOM merge would serialise it; its `idKey` attribute (and reference) left as holes. */
function writeDefinition(
  data: object,
  scope: ReadonlyMap<string, string>,
  idKey: string,
  isNum: boolean,
): { id: string; reference: string | undefined; definition: Definition } {
  const used = new Map<string, string>();
  const values: string[] = [];
  const overrides: Definition['overrides'] = [];
  let id: string | undefined;
  let reference: string | undefined;
  const noteUse = (name: string, into: Map<string, string>[], attribute = false): void => {
    const colon = name.indexOf(':');
    if (colon < 0) throw new Unsupported();
    const prefix = name.slice(0, colon);
    if (prefix === 'xml' && attribute) return;
    const uri = scope.get(prefix);
    if (uri === undefined || prefix === 'xmlns') throw new Unsupported();
    for (const map of into) if (!map.has(prefix)) map.set(prefix, uri);
  };
  const write = (item: object, depth: number, into: Map<string, string>[], out: string[]): boolean => {
    const element = resolved(item);
    if (!element) return false;
    const { name, attributes, content } = element;
    noteUse(name, into);
    out.push(`<${name}`);
    const isReference = isNum && depth === 1 && reference === undefined && name === 'w:abstractNumId';
    for (const [key, raw] of attributes ?? []) {
      if (key === 'xmlns' || key.startsWith('xmlns:')) throw new Unsupported();
      if (key.includes(':')) noteUse(key, into, true);
      const value = attributeValue(raw);
      if ((depth === 0 && key === idKey && id === undefined) || (isReference && key === 'w:val')) {
        if (depth === 0) id = value;
        else reference = value;
        values.push(attributeText(key, value).slice(key.length + 3, -1));
        out.push(` ${key}="${HOLE}"`);
      } else out.push(attributeText(key, value));
    }
    const open = out.length;
    out.push('');
    let any = false;
    for (const child of content ?? []) {
      if (child === '' || child === undefined) continue;
      if (child instanceof TextItem) {
        const text = textOf(child.value);
        if (text === '') continue;
        out.push(encodeText(text));
        any = true;
        continue;
      }
      const override = isNum && depth === 0 && firstKey(child as object) === 'w:lvlOverride';
      if (override) {
        const own = new Map<string, string>();
        const text: string[] = [];
        if (write(child as object, depth + 1, [...into, own], text)) {
          overrides.push({ text: text.join(''), used: own });
          out.push(...text);
          any = true;
        }
      } else if (write(child as object, depth + 1, into, out)) any = true;
    }
    if (any) {
      out[open] = '>';
      out.push(`</${name}>`);
    } else out[open] = '/>';
    return true;
  };
  const out: string[] = [];
  write(data, 0, [used], out);
  // The DOM merge finds a definition by its id and a w:num's reference by its w:abstractNumId child: both present.
  if (id === undefined || (isNum && reference === undefined)) throw new Unsupported();
  return { id, reference, definition: { pieces: out.join('').split(HOLE), values, used, overrides } };
}

/** A definition's text with its holes filled (undefined: the value it had). */
function filled(definition: Definition, values: (string | undefined)[]): string {
  let text = definition.pieces[0] ?? '';
  for (let i = 1; i < definition.pieces.length; i++) {
    const value = values[i - 1];
    text += (value === undefined ? definition.values[i - 1] : attributeText('v', value).slice(4, -1)) ?? '';
    text += definition.pieces[i] ?? '';
  }
  return text;
}

/** A template's numbering part as the text merge reads it: parsed once, and its text around our insertions. */
interface TemplateNumbering {
  /** Parsed once and only read (the plan's ids and the numbering its styles carry); null: not one this writes. */
  doc: XmlDocument | null;
  /** The namespaces its root declares (prefix → URI). */
  declared: ReadonlyMap<string, string>;
  /** The part's text cut where our definitions go, by the namespaces they use (declared on its root); null where the
   * serialiser leaves the part to xmldom. A few per template: the namespaces docx's definitions use hardly vary. */
  around: Map<string, string[] | null>;
}

/** By the template part's bytes (a template's parts are read once and kept: template/read.ts). */
const templates = new WeakMap<Uint8Array, TemplateNumbering>();
const AROUND_KEPT = 8;

/**
 * The largest numbering part merged as text. Its parse is kept with the template (about 55 times the part's size in
 * memory, for as long as a worker keeps the template): a part of 64 KB keeps ~3.5 MB. Real templates' parts are a
 * few KB to ~40 KB (the corpus's largest: 39 KB); a larger one (a hostile upload of thousands of definitions) is
 * merged as a DOM, parsed per conversion and let go, as before.
 */
const TEXT_MERGE_MAX_BYTES = 64 * 1024;

function templateNumbering(data: Uint8Array | string, path: string): TemplateNumbering | undefined {
  if (data.length > TEXT_MERGE_MAX_BYTES) return undefined;
  let known = typeof data === 'string' ? undefined : templates.get(data);
  if (!known) {
    const doc = parsePart(data, path);
    const root = doc.documentElement;
    const declared = root ? declaredOn(root) : new Map<string, string>();
    const usable = root !== null && root.lookupPrefix(NS.w) === 'w' && declared.get('w') === NS.w;
    known = { doc: usable ? doc : null, declared, around: new Map() };
    if (typeof data !== 'string') templates.set(data, known);
  }
  return known;
}

/**
 * The part's text before, between and after the places of our abstract numberings and list instances, with the
 * declarations they need on its root: what the DOM merge writes around the same elements (a fresh parse changed).
 */
function around(
  data: Uint8Array | string,
  path: string,
  known: TemplateNumbering,
  abstractUsed: ReadonlyMap<string, string>,
  numUsed: ReadonlyMap<string, string>,
): string[] | null {
  const key = JSON.stringify([[...abstractUsed], [...numUsed]]);
  let pieces = known.around.get(key);
  if (pieces === undefined) {
    const doc = parsePart(data, path);
    const root = doc.documentElement;
    if (!root) return null;
    // Where the DOM merge inserts them.
    const at = insertionPoints(root);
    const atAbstracts = doc.createTextNode('');
    const atNums = doc.createTextNode('');
    root.insertBefore(atAbstracts, at.abstracts);
    root.insertBefore(atNums, at.nums);
    // A w:numIdMacAtCleanup before the first w:num puts our list instances before our abstract numberings (the DOM
    // merge's order): not a layout this writes.
    let first: unknown = null;
    for (let n = root.firstChild; n && first === null; n = n.nextSibling)
      if (n === atAbstracts || n === atNums) first = n;
    if (first !== atAbstracts) return null;
    declareNamespaces(doc, [
      { at: atAbstracts, used: abstractUsed },
      { at: atNums, used: numUsed },
    ]);
    pieces = serializeAroundAll(doc, [atAbstracts, atNums]) ?? null;
    if (known.around.size >= AROUND_KEPT) known.around.clear();
    known.around.set(key, pieces);
  }
  return pieces;
}

/**
 * The template's numbering part (`data` at `path`) with docx's definitions merged in, as text, the references in
 * `sites` renumbered; undefined where the part is laid out in a way this does not write (its w namespace under
 * another prefix, a prefix of ours bound to another namespace, a node the serialiser leaves to xmldom): the caller
 * then merges as a DOM (the sites hold the ids they were first read with, so planning again gives the same).
 */
export function mergeNumberingText(
  data: Uint8Array | string,
  path: string,
  generated: GeneratedNumberingText,
  sites: readonly NumberingSite[],
  styles: XmlDocument | null,
): string | undefined {
  const known = templateNumbering(data, path);
  if (!known) return undefined;
  const template = known.doc;
  const root = template?.documentElement;
  if (!template || !root) return undefined;
  const declared = known.declared;
  const conflicts = (used: ReadonlyMap<string, string>): boolean =>
    [...used].some(([prefix, uri]) => declared.has(prefix) && declared.get(prefix) !== uri);
  for (const definition of [...generated.abstracts.values(), ...generated.nums.values()])
    if (conflicts(definition.used)) return undefined;

  const plan = planNumbering(
    template,
    template,
    {
      nums: new Map([...generated.nums].map(([id, num]) => [id, num.abstractRef])),
      abstracts: [...generated.abstracts.keys()],
    },
    sites,
    styles,
  );
  const abstractUsed = new Map<string, string>();
  const numUsed = new Map<string, string>();
  const gather = (into: Map<string, string>, used: ReadonlyMap<string, string>): void => {
    for (const [prefix, uri] of used) if (!into.has(prefix)) into.set(prefix, uri);
  };
  let abstracts = '';
  for (const { from, id } of plan.abstracts) {
    const definition = generated.abstracts.get(from);
    if (!definition) continue;
    abstracts += filled(definition, [id]);
    gather(abstractUsed, definition.used);
  }
  let nums = '';
  for (const planned of plan.nums) {
    const definition = generated.nums.get(planned.from);
    if (!definition) continue;
    if (planned.styled) {
      // As numbering.ts makes it: a w:num on the style's abstract numbering, docx's restarts copied.
      nums += `<w:num${attributeText('w:numId', planned.id)}><w:abstractNumId${attributeText('w:val', planned.abstractNumId)}/>`;
      gather(numUsed, new Map([['w', NS.w]]));
      for (const override of definition.overrides) {
        nums += override.text;
        gather(numUsed, override.used);
      }
      nums += '</w:num>';
    } else {
      nums += filled(definition, [planned.id, planned.abstractId]);
      gather(numUsed, definition.used);
    }
  }
  const pieces = around(data, path, known, abstractUsed, numUsed);
  if (!pieces) return undefined;
  const [before = '', between = '', after = ''] = pieces;
  return withDeclaration(`${before}${abstracts}${between}${nums}${after}`);
}
