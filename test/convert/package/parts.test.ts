// Fixture tests per package part: test/fixtures/package/<part>/<case>/ holds the template's part and ours (and what
// else the merger reads); the merged part (pretty-printed) and what the merger returns are compared with the
// expected files. `UPDATE=1 npx vitest run test/convert/package/parts.test.ts` rewrites them for review.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Document as XmlDocument, Element } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { ContentTypes } from '../../../server/convert/package/content-types.ts';
import { corePropertiesXml } from '../../../server/convert/package/core-properties.ts';
import { mergeDocument } from '../../../server/convert/package/document.ts';
import { children, parsePart, serializePart, wChild } from '../../../server/convert/package/dom.ts';
import { mergeFootnotes, pruneNotes } from '../../../server/convert/package/footnotes.ts';
import { declareNamespaces } from '../../../server/convert/package/namespaces.ts';
import { mergeNumberingText, numberingSites } from '../../../server/convert/package/numbering.ts';
import { Relationships } from '../../../server/convert/package/relationships.ts';
import { repairSettings } from '../../../server/convert/package/settings.ts';
import { addSupportStyles, pointSupportStyles } from '../../../server/convert/package/styles.ts';
import { readStyles } from '../../../server/convert/template/styles.ts';
import { prettyXml } from '../../helpers/docx.ts';

const root = resolve(import.meta.dirname, '../../fixtures/package');
const update = process.env.UPDATE === '1';

type Outputs = Record<string, string>;

function input(dir: string, name: string): XmlDocument | null {
  const path = join(dir, name);
  return existsSync(path) ? parsePart(readFileSync(path, 'utf8'), name) : null;
}

function required(dir: string, name: string): XmlDocument {
  const doc = input(dir, name);
  if (!doc) throw new Error(`${dir} has no ${name}`);
  return doc;
}

/** The block children of a w:document's body (our content, as the package step sees it). */
function bodyChildren(doc: XmlDocument): Element[] {
  const body = wChild(doc.documentElement, 'body');
  return body ? children(body) : [];
}

const pretty = (doc: XmlDocument): string => prettyXml(serializePart(doc));

/** Each part's merger, run on a fixture folder. */
const runners: Record<string, (dir: string) => Outputs> = {
  namespaces(dir) {
    const doc = required(dir, 'input.xml');
    declareNamespaces(doc);
    return { 'expected.xml': pretty(doc) };
  },
  document(dir) {
    const { document, content, kept } = mergeDocument(required(dir, 'template.xml'), required(dir, 'generated.xml'));
    declareNamespaces(document);
    const sets = Object.fromEntries(Object.entries(kept).map(([k, v]) => [k, [...v]]));
    return {
      'expected.xml': pretty(document),
      'result.json': `${JSON.stringify({ contentElements: content.length, kept: sets }, null, 2)}\n`,
    };
  },
  numbering(dir) {
    const body = required(dir, 'body.xml');
    const merged = mergeNumberingText(
      input(dir, 'template.xml'),
      readFileSync(join(dir, 'generated.xml'), 'utf8'),
      numberingSites(bodyChildren(body)),
      input(dir, 'styles.xml'),
    );
    if (merged === null) throw new Error('no numbering merged');
    return { 'expected.xml': pretty(parsePart(merged, 'numbering.xml')), 'expected-body.xml': pretty(body) };
  },
  footnotes(dir) {
    const template = required(dir, 'template.xml');
    const body = required(dir, 'body.xml');
    const keep: string[] = existsSync(join(dir, 'keep.json'))
      ? JSON.parse(readFileSync(join(dir, 'keep.json'), 'utf8'))
      : [];
    pruneNotes(template, 'footnote', new Set(keep));
    mergeFootnotes(template, required(dir, 'generated.xml'), bodyChildren(body));
    return { 'expected.xml': pretty(template), 'expected-body.xml': pretty(body) };
  },
  styles(dir) {
    const styles = required(dir, 'template.xml');
    const body = required(dir, 'body.xml');
    const templateStyles = readStyles(styles);
    addSupportStyles(() => styles, templateStyles, pointSupportStyles(templateStyles, [body]));
    return { 'expected.xml': pretty(styles), 'expected-body.xml': pretty(body) };
  },
  settings(dir) {
    const settings = required(dir, 'template.xml');
    const changed = repairSettings(settings);
    return { 'expected.xml': pretty(settings), 'result.json': `${JSON.stringify({ changed })}\n` };
  },
  relationships(dir) {
    const rels = new Relationships(readFileSync(join(dir, 'template.xml'), 'utf8'), 'template.xml');
    const adds: { type: string; target: string; external?: boolean; prefix?: string }[] = JSON.parse(
      readFileSync(join(dir, 'add.json'), 'utf8'),
    );
    const ids = adds.map((a) => rels.add(a.type, a.target, { external: a.external, prefix: a.prefix }));
    return { 'expected.xml': prettyXml(rels.toXml()), 'ids.json': `${JSON.stringify(ids)}\n` };
  },
  'content-types'(dir) {
    const types = new ContentTypes(readFileSync(join(dir, 'template.xml'), 'utf8'));
    types.addOverride(
      '/word/numbering.xml',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml',
    );
    types.addOverride('/word/styles.xml', 'not added: the part has an override');
    types.mainAsDocument('/word/document.xml');
    return { 'expected.xml': prettyXml(types.toXml()) };
  },
};

/** Compares with the expected file, or writes it under UPDATE=1. */
function expectFile(dir: string, name: string, actual: string): void {
  const path = join(dir, name);
  if (update) {
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`missing expected file ${path}; run with UPDATE=1 and review it`);
  expect(actual, `${name} differs from the fixture (UPDATE=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

describe('package parts (fixtures)', () => {
  for (const part of readdirSync(root).sort()) {
    const runner = runners[part];
    it(`${part}: has a merger`, () => expect(runner).toBeDefined());
    if (!runner) continue;
    for (const name of readdirSync(join(root, part)).sort()) {
      it(`${part}/${name}`, () => {
        const dir = join(root, part, name);
        for (const [file, actual] of Object.entries(runner(dir))) expectFile(dir, file, actual);
      });
    }
  }
  it('core properties: escaped text, fixed dates, no template author', () => {
    const xml = corePropertiesXml({ title: 'A & B <c>', creator: 'Zoë' }, new Date('2026-01-02T03:04:05.678Z'));
    expect(prettyXml(xml)).toMatchInlineSnapshot(`
      "<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <dc:title>A &amp; B &lt;c&gt;</dc:title>
        <dc:creator>Zoë</dc:creator>
        <cp:lastModifiedBy>Docwright</cp:lastModifiedBy>
        <dcterms:created xsi:type="dcterms:W3CDTF">2026-01-02T03:04:05Z</dcterms:created>
        <dcterms:modified xsi:type="dcterms:W3CDTF">2026-01-02T03:04:05Z</dcterms:modified>
      </cp:coreProperties>
      "
    `);
  });
});

describe('package parts of any width', () => {
  // 200,000 paragraphs (or runs in one paragraph, as a 4 MB line gives): spreading an element's children into one
  // call's arguments overflowed the stack ("Maximum call stack size exceeded").
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const wide = (n: number, tag: string) =>
    `<w:${tag} xmlns:w="${W}"><w:body>${'<w:p xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" w14:paraId="1A2B3C4D"/>'.repeat(n)}</w:body></w:${tag}>`;

  it('declares namespaces on a body of 200,000 paragraphs', () => {
    const doc = parsePart(wide(200_000, 'document'), 'document.xml');
    declareNamespaces(doc);
    const body = wChild(doc.documentElement, 'body') as Element;
    expect(children(body)).toHaveLength(200_000);
    // The repeated xmlns:w14 went up to the root: each paragraph keeps only its w14:paraId.
    expect(children(body).every((p) => p.attributes.length === 1)).toBe(true);
  });

  it('merges footnotes into a part of 200,000 notes', () => {
    const notes = `<w:footnotes xmlns:w="${W}">${Array.from({ length: 200_000 }, (_, i) => `<w:footnote w:id="${i + 1}"><w:p/></w:footnote>`).join('')}</w:footnotes>`;
    const template = parsePart(notes, 'footnotes.xml');
    const generated = parsePart(
      `<w:footnotes xmlns:w="${W}"><w:footnote w:id="1"><w:p/></w:footnote></w:footnotes>`,
      'footnotes.xml',
    );
    mergeFootnotes(template, generated, []);
    expect(children(template.documentElement as Element).length).toBeGreaterThanOrEqual(200_000);
  });
});
