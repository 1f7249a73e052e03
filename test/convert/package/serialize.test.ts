// The package's own serializer (server/convert/package/serialize.ts) writes exactly what xmldom's XMLSerializer
// writes: on every XML part of every corpus template and of every fixture's and corpus document's output, and on the
// namespace cases xmldom handles specially.
import { DOMParser, XMLSerializer, type Document as XmlDocument } from '@xmldom/xmldom';
import { unzipSync } from 'fflate';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert, defaultTemplate } from '../../../server/convert/index.ts';
import { parsePart } from '../../../server/convert/package/dom.ts';
import { serializeDocument } from '../../../server/convert/package/serialize.ts';
import { EXTRA_CORPUS, SHARED_CORPUS } from '../../corpus/run.ts';
import { fixtureOptions } from '../../helpers/fixture-options.ts';

const ELEMENTS = join(import.meta.dirname, '../../fixtures/elements');
const CREATED = new Date('2026-01-01T00:00:00Z');

function files(dir: string, pattern: RegExp): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => pattern.test(f))
        .sort()
        .map((f) => join(dir, f))
    : [];
}

/** Every XML part of a package, parsed. */
function xmlParts(docx: Uint8Array): [string, XmlDocument][] {
  return Object.entries(unzipSync(docx))
    .filter(([path]) => /\.(xml|rels)$/.test(path))
    .map(([path, data]) => [path, parsePart(data, path)]);
}

function expectSameAsXmldom(doc: XmlDocument, label: string): void {
  expect(serializeDocument(doc), label).toBe(new XMLSerializer().serializeToString(doc));
}

const templates = [SHARED_CORPUS, EXTRA_CORPUS].flatMap((root) => files(join(root, 'templates'), /\.(docx|dotx)$/));
const docs = [SHARED_CORPUS, EXTRA_CORPUS].flatMap((root) => files(join(root, 'docs'), /\.md$/));

describe('serializeDocument writes what xmldom writes', () => {
  it('every XML part of the built-in and every corpus template', () => {
    expect(templates.length).toBeGreaterThanOrEqual(5);
    for (const bytes of [defaultTemplate(), ...templates.map((t) => new Uint8Array(readFileSync(t)))])
      for (const [path, doc] of xmlParts(bytes)) expectSameAsXmldom(doc, path);
  });

  it('every XML part of every fixture output and of every corpus document with the built-in template', async () => {
    const inputs = readdirSync(ELEMENTS)
      .map((name) => join(ELEMENTS, name, 'input.md'))
      .filter((path) => existsSync(path));
    expect(inputs.length).toBeGreaterThan(10);
    for (const input of [...inputs, ...docs]) {
      // A fixture's options too (its bibliography, its dialect), as the fixture test converts it.
      const { docx } = await convert({
        markdown: readFileSync(input, 'utf8'),
        created: CREATED,
        ...fixtureOptions(input),
      });
      for (const [path, doc] of xmlParts(docx)) expectSameAsXmldom(doc, `${input}: ${path}`);
    }
  }, 300_000);

  it('declarations xmldom adds, escapes, comments, CDATA, processing instructions, a default namespace', () => {
    const w = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const doc = new DOMParser().parseFromString(
      `<?xml version="1.0"?><?pi some data?><w:document xmlns:w="${w}" xmlns:r="urn:r" a="x&#9;y&#10;z&#13;&quot;&lt;&gt;&amp;">` +
        '<w:body><!-- note --><w:t xml:space="preserve"> a &lt; b &gt; c &amp; "d" ]]&gt; </w:t><![CDATA[x ]]]]><![CDATA[> y]]>' +
        `<inner xmlns="${w}"><p/></inner><other xmlns="urn:o"><q r:id="1"/></other><x:y xmlns:x="urn:x" x:a="1"/></w:body></w:document>`,
      'text/xml',
    );
    const body = doc.getElementsByTagNameNS(w, 'body').item(0);
    if (!body) throw new Error('no body');
    // Made by hand without declarations: xmldom declares their namespaces where they are used.
    const made = doc.createElementNS('urn:made', 'm:made');
    made.setAttributeNS('urn:attr', 'n:attr', 'v');
    made.appendChild(doc.createElementNS('urn:made', 'm:child'));
    made.appendChild(doc.createElementNS('urn:plain', 'plain'));
    body.appendChild(made);
    body.appendChild(doc.createElementNS(w, 'unprefixed'));
    expectSameAsXmldom(doc, 'made by hand');
    const rels = new DOMParser().parseFromString(
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1"/></Relationships>',
      'text/xml',
    );
    rels.documentElement?.appendChild(rels.createElementNS('urn:other', 'Other'));
    expectSameAsXmldom(rels, 'default namespace');
    const html = new DOMParser().parseFromString(
      '<html xmlns="http://www.w3.org/1999/xhtml"><br/><p></p></html>',
      'text/xml',
    );
    expectSameAsXmldom(html, 'XHTML (left to xmldom)');
  });
});
