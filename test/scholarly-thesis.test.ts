// Issue 34, acceptance 1–3: a thesis-shaped document (test/fixtures/thesis: 3 chapters, 6 figures, 4 tables, 5
// equations, 20 citations of a BibTeX file, a cross-reference to each) through the engine (APA and a numeric style),
// the command line, the API and MCP: every number right in the PDF LibreOffice makes from it (the fields pre-filled),
// the cross-references internal links, citations and a bibliography of 20 entries, no literal syntax left, every
// output schema-valid; and the same document through pandoc --citeproc in the same test, for the comparison the
// closing note makes (pandoc 2.17 without pandoc-crossref numbers nothing and prints each cross-reference as
// "(fig:pipeline?)").
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convert } from '../server/convert/index.ts';
import { folderSource } from '../server/confined/image-folder.ts';
import { createMcpServer } from '../server/mcp/server.ts';
import { startServer, type RunningServer } from '../server/serve.ts';
import { Services } from '../server/services.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../server/store/store.ts';
import { call, runCli, trustingAgent } from './helpers/docwright-process.ts';
import { libreOfficePdfs, part, validateDocx } from './helpers/docx.ts';
import { embeddedDocx, structured } from './mcp/client.ts';

const run = promisify(execFile);
const THESIS = resolve(import.meta.dirname, 'fixtures/thesis');
const MARKDOWN = readFileSync(join(THESIS, 'thesis.md'), 'utf8');
const BIB = readFileSync(join(THESIS, 'refs.bib'), 'utf8');
const created = new Date('2026-11-27T00:00:00Z');

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'dw-thesis-'));
  cpSync(THESIS, join(work, 'thesis'), { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A document's body text: runs joined, a paragraph a line, field codes left out (their results kept). */
function bodyText(docx: Uint8Array): string {
  return [...part(docx, 'word/document.xml').matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:p[ >]|<w:tab\/>/g)]
    .map((m) => m[1] ?? (m[0] === '<w:tab/>' ? '\t' : '\n'))
    .join('')
    .replaceAll('&amp;', '&');
}

/** What every surface's output holds, whatever the style: numbers, references, no literal syntax, 20 sources. */
async function expectThesis(docx: Uint8Array, warnings: readonly string[]): Promise<string> {
  expect(warnings).toEqual([]);
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
  const xml = part(docx, 'word/document.xml');
  // A numbered caption per figure, table and equation: SEQ fields, pre-filled in document order.
  expect(xml.match(/SEQ Figure/g)).toHaveLength(6);
  expect(xml.match(/SEQ Table/g)).toHaveLength(4);
  expect(xml.match(/SEQ Equation/g)).toHaveLength(5);
  // Every cross-reference a REF field to a bookmark the document has, in an internal link.
  const refs = [...xml.matchAll(/ REF (\w+) \\h/g)].map((m) => m[1] ?? '');
  expect(refs).toHaveLength(25);
  // Each figure, table, equation and chapter referred to at least once.
  expect(new Set(refs).size).toBe(18);
  for (const name of new Set(refs)) expect(xml).toContain(`w:name="${name}"`);
  expect(xml.match(/<w:hyperlink [^>]*w:anchor="/g)?.length ?? 0).toBeGreaterThanOrEqual(25);
  const text = bodyText(docx);
  for (const literal of ['[@', '@fig:', '@tbl:', '@eq:', '@sec:', 'Table:', '{#', ':::'])
    expect(text).not.toContain(literal);
  for (let n = 1; n <= 6; n++) expect(text).toContain(`Figure ${String(n)}`);
  for (let n = 1; n <= 4; n++) expect(text).toContain(`Table ${String(n)}`);
  expect(xml.match(/<w:pStyle w:val="Bibliography"\/>/g)).toHaveLength(20);
  return text;
}

describe('a thesis through every surface', () => {
  const outputs = new Map<string, Uint8Array>();

  it('the engine, APA (the default): author-date citations, the bibliography by author', async () => {
    const result = await convert({ markdown: MARKDOWN, images: folderSource(THESIS), created });
    const text = await expectThesis(result.docx, result.warnings);
    expect(text).toContain('(Shannon, 1948)');
    expect(text).toContain('(Hoare, 1969, p. 577)');
    expect(text).toContain('(Knuth, 1968; Lamport, 1994)');
    expect(text).toContain('(see Cooley & Tukey, 1965, pp. 297–298)');
    expect(text).toContain('Shannon, C. E. (1948). A Mathematical Theory of Communication.');
    outputs.set('apa', result.docx);
  });

  it('the engine, a numeric style (vancouver): numbers in order of citation, the bibliography numbered', async () => {
    const result = await convert({ markdown: MARKDOWN, images: folderSource(THESIS), created, csl: 'vancouver' });
    const text = await expectThesis(result.docx, result.warnings);
    expect(text).toContain('communication (1), the limits of computation (2)');
    expect(text).toMatch(/1\.\tShannon CE\. A Mathematical Theory of Communication/);
    outputs.set('vancouver', result.docx);
  });

  it('the command line, the bibliography and figures read beside the markdown', async () => {
    const out = join(work, 'cli.docx');
    const dir = join(work, 'thesis');
    const { code, stderr } = await runCli([
      '--data-dir',
      join(work, 'cli-data'),
      'convert',
      join(dir, 'thesis.md'),
      '-o',
      out,
    ]);
    expect(code, stderr).toBe(0);
    await expectThesis(new Uint8Array(readFileSync(out)), []);
    expect(stderr).toContain('; no warnings');
  });

  describe('the API and MCP', () => {
    let server: RunningServer;
    let agent: Agent;
    let key: string;
    beforeAll(async () => {
      server = await startServer({ dataDir: join(work, 'api-data'), port: 0 });
      agent = trustingAgent(server.discovery.cert_path ?? '');
      const made = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
        method: 'POST',
        headers: { 'x-docwright-admin': server.adminToken },
        body: { name: 'thesis' },
      });
      key = (made.json() as { key: string }).key;
    });
    afterAll(async () => {
      await agent.close();
      await server.close();
    });

    it('POST /api/v1/convert with the bibliography sent in the request (figures as placeholders, still numbered)', async () => {
      const res = await request(`${server.discovery.url}/api/v1/convert`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          markdown: MARKDOWN,
          bibliography: BIB,
          template_id: BUILTIN_TEMPLATE_ID,
          mapping_id: BUILTIN_MAPPING_ID,
        }),
      });
      const bytes = new Uint8Array(await res.body.arrayBuffer());
      expect(res.statusCode, new TextDecoder().decode(bytes.slice(0, 300))).toBe(200);
      const header = res.headers['x-warnings'];
      const warnings = typeof header === 'string' ? (JSON.parse(header) as string[]) : [];
      // No images come with a JSON request: each figure a placeholder, said, and numbered all the same.
      expect(warnings.filter((w) => w.startsWith('image_placeholder:'))).toHaveLength(6);
      await expectThesis(
        bytes,
        warnings.filter((w) => !w.startsWith('image_placeholder:')),
      );
    });

    it('MCP convert_markdown with input_path: the bibliography and figures beside the file', async () => {
      const allowed = join(work, 'mcp-allowed');
      mkdirSync(allowed);
      cpSync(THESIS, join(allowed, 'thesis'), { recursive: true });
      const store = await Store.open(join(work, 'mcp-data'));
      const services = new Services(store);
      await store.updateSettings({ mcp_output_dir: allowed, plan: 'team' });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await createMcpServer(services, { embedLimit: 10 * 1024 * 1024 }).connect(serverSide);
      const client = new Client({ name: 'docwright-thesis-test', version: '1.0.0' });
      await client.connect(clientSide);
      try {
        const result = (await client.callTool({
          name: 'convert_markdown',
          arguments: { input_path: join(allowed, 'thesis/thesis.md') },
        })) as CallToolResult;
        await expectThesis(embeddedDocx(result), structured(result).warnings);
      } finally {
        await client.close();
        await services.close();
        store.close();
      }
    });
  });

  it(
    'LibreOffice prints every number as pre-filled, beside pandoc --citeproc of the same document',
    { timeout: 240_000 },
    async () => {
      const paths: string[] = [];
      for (const [name, docx] of outputs) {
        const path = join(work, `${name}.docx`);
        writeFileSync(path, docx);
        paths.push(path);
      }
      // pandoc 2.17 in the same run: its citations (Chicago author-date, its default) and what it does with the rest.
      const pandocDocx = join(work, 'pandoc.docx');
      await run('pandoc', ['--citeproc', join(THESIS, 'thesis.md'), '--resource-path', THESIS, '-o', pandocDocx], {
        cwd: THESIS,
      });
      paths.push(pandocDocx);
      await libreOfficePdfs(paths, work, 200_000);
      const pdfText = async (name: string) =>
        (await run('pdftotext', ['-layout', join(work, `${name}.pdf`), '-'], { maxBuffer: 16 * 1024 * 1024 })).stdout;
      for (const name of ['apa', 'vancouver']) {
        const text = (await pdfText(name)).replace(/\s+/g, ' ');
        for (let n = 1; n <= 6; n++) expect(text).toContain(`Figure ${String(n)}:`);
        for (let n = 1; n <= 4; n++) expect(text).toContain(`Table ${String(n)}:`);
        for (let n = 1; n <= 5; n++) expect(text).toContain(`(${String(n)})`);
        // Cross-references as the reader sees them, and the lists of figures and tables.
        expect(text).toContain('Figure 1 shows the pipeline; Table 1 lists the sources and Equation 1 defines');
        expect(text).toContain('Table 3: The models compared');
        expect(text).toContain('References');
      }
      expect((await pdfText('apa')).replace(/\s+/g, ' ')).toContain('(Shannon, 1948)');
      // pandoc: citations formatted, but no numbered captions and every cross-reference left as "(fig:pipeline?)".
      const pandoc = (await pdfText('pandoc')).replace(/\s+/g, ' ');
      expect(pandoc).toContain('(Shannon 1948)');
      expect(pandoc).toContain('(fig:pipeline?)');
      expect(pandoc).not.toContain('Figure 1');
    },
  );
});
