// POST /api/v1/convert with a bibliography over a real server (docs/captions-references.md): the JSON body's `bibliography`,
// `bibliography_format` and `csl` fields, the multipart form's parts of the same names, and their refusals.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FormData, request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { startKeyedServer } from '../helpers/keyed-server.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const REFS = readFileSync(resolve(import.meta.dirname, '../fixtures/citations/refs.bib'), 'utf8');
const MARKDOWN = 'Markdown is old [@doe2020, p. 33]; @smith2019 agrees [@nobody].\n';
let dir: string;
let server: RunningServer;
let agent: Agent;
let apiKey: string;
const url = (path: string) => `${server.discovery.url}${path}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-convert-citations-'));
  ({ server, agent, key: apiKey } = await startKeyedServer(dir, 'citations'));
});

afterAll(async () => {
  await agent.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(body: FormData | Record<string, unknown>) {
  const json = !(body instanceof FormData);
  const res = await request(url('/api/v1/convert'), {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${apiKey}`, ...(json ? { 'content-type': 'application/json' } : {}) },
    body: json ? JSON.stringify({ template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID, ...body }) : body,
  });
  const bytes = new Uint8Array(await res.body.arrayBuffer());
  return {
    status: res.statusCode,
    headers: res.headers,
    bytes,
    json: () => JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>,
  };
}

/** The text of a document's body, its runs joined, a paragraph a line. */
function bodyText(docx: Uint8Array): string {
  return [...part(docx, 'word/document.xml').matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:p[ >]|<w:tab\/>/g)]
    .map((m) => m[1] ?? (m[0] === '<w:tab/>' ? '\t' : '\n'))
    .join('')
    .replaceAll('&amp;', '&');
}

describe('POST /api/v1/convert with a bibliography', () => {
  it('JSON: BibTeX text in `bibliography` formats the citations in APA and prints the bibliography', async () => {
    const res = await post({ markdown: MARKDOWN, bibliography: REFS });
    expect(res.status).toBe(200);
    const text = bodyText(res.bytes);
    expect(text).toContain('Markdown is old (Doe & Roe, 2020, p. 33); Smith (2019) agrees [@nobody].');
    expect(text).toContain('\nReferences\nDoe, J., & Roe, R. (2020). The Art of Markdown. Example Press.');
    const { ok, report } = await validateDocx(res.bytes);
    expect(ok, report).toBe(true);
    const record = await post({ markdown: MARKDOWN, bibliography: REFS, response_format: 'json' });
    expect(record.status).toBe(200);
    expect(record.json().warnings).toEqual(['citation_missing: nobody']);
  });

  it('JSON: CSL JSON with its format named, and a numeric style', async () => {
    const csl = JSON.stringify([
      { id: 'doe2020', type: 'book', title: 'A Book', author: [{ family: 'Doe', given: 'Jane' }], issued: 2020 },
      { id: 'smith2019', type: 'book', title: 'Another', author: [{ family: 'Smith', given: 'John' }], issued: 2019 },
    ]);
    const res = await post({
      markdown: MARKDOWN.replace(' [@nobody]', ''),
      bibliography: csl,
      bibliography_format: 'csl-json',
      csl: 'vancouver',
    });
    expect(res.status).toBe(200);
    const text = bodyText(res.bytes);
    expect(text).toContain('Markdown is old (1); (2) agrees.');
    expect(text).toContain('1.\tDoe J. A Book. 2020.');
  });

  it('multipart: the bibliography as a file part, its format from its name; the style as a field', async () => {
    const form = new FormData();
    form.append('markdown', MARKDOWN);
    form.append('template_id', BUILTIN_TEMPLATE_ID);
    form.append('mapping_id', BUILTIN_MAPPING_ID);
    form.append('bibliography', new Blob([REFS], { type: 'application/x-bibtex' }), 'refs.bib');
    form.append('csl', 'harvard1');
    const res = await post(form);
    expect(res.status).toBe(200);
    expect(bodyText(res.bytes)).toContain('Markdown is old (Doe and Roe, 2020, p. 33)');
    const { ok, report } = await validateDocx(res.bytes);
    expect(ok, report).toBe(true);
  });

  it('refuses what cannot be used, in the error envelope', async () => {
    const style = await post({ markdown: MARKDOWN, bibliography: REFS, csl: 'chicago' });
    expect(style.status).toBe(422);
    expect(style.json()).toEqual({
      error: {
        code: 'validation_error',
        message: "csl must be one of apa, vancouver, harvard1 or a CSL style's XML",
      },
    });
    const deep = await post({ markdown: MARKDOWN, bibliography: `@book{a, title = {${'{'.repeat(200_000)}}}` });
    expect(deep.status).toBe(422);
    expect((deep.json().error as { message: string }).message).toMatch(/^the bibliography is not valid BibTeX/);
    const format = await post({ markdown: MARKDOWN, bibliography: REFS, bibliography_format: 'ris' });
    expect(format.status).toBe(422);
    expect((format.json().error as { code: string }).code).toBe('validation_error');
    // A front matter file with nothing sent beside it: said, not silently left out.
    const beside = await post({ markdown: `---\nbibliography: refs.bib\n---\n\n${MARKDOWN}` });
    expect(beside.status).toBe(422);
    expect((beside.json().error as { message: string }).message).toMatch(
      /^the bibliography refs\.bib cannot be read here: send it with the request/,
    );
  });

  it('multipart: a front matter file not sent is refused as JSON refuses it (images sent or not)', async () => {
    const form = new FormData();
    form.append('markdown', `---\nbibliography: refs.bib\n---\n\n${MARKDOWN}`);
    form.append('template_id', BUILTIN_TEMPLATE_ID);
    form.append('mapping_id', BUILTIN_MAPPING_ID);
    form.append(
      'images',
      new Blob(['<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'], { type: 'image/svg+xml' }),
      'chart.svg',
    );
    const res = await post(form);
    expect(res.status).toBe(422);
    expect((res.json().error as { message: string }).message).toMatch(
      /^the bibliography refs\.bib cannot be read here: send it with the request/,
    );
    const bare = new FormData();
    bare.append('markdown', `---\nbibliography: refs.bib\n---\n\n${MARKDOWN}`);
    bare.append('template_id', BUILTIN_TEMPLATE_ID);
    bare.append('mapping_id', BUILTIN_MAPPING_ID);
    const second = await post(bare);
    expect(second.status).toBe(422);
    expect((second.json().error as { message: string }).message).toMatch(
      /^the bibliography refs\.bib cannot be read here: send it with the request/,
    );
  });
});
