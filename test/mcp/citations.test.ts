// convert_markdown with citations (docs/captions-references.md): the `bibliography` and `csl` arguments, and an input_path
// file whose front matter names a bibliography beside it (read from that folder, never outside it). Real store, real
// services and conversion workers, the MCP server over an in-memory transport.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../server/mcp/server.ts';
import { Services } from '../../server/services.ts';
import { Store } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { embeddedDocx, structured, toolError } from './client.ts';

const REFS_PATH = resolve(import.meta.dirname, '../fixtures/citations/refs.bib');
const MARKDOWN = 'Markdown is old [@doe2020, p. 33]; @smith2019 agrees.\n';
let dir: string;
let allowed: string;
let store: Store;
let services: Services;
let client: Client;

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The text of a document's body, its runs joined, a paragraph a line. */
function bodyText(docx: Uint8Array): string {
  return [...part(docx, 'word/document.xml').matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:p[ >]|<w:tab\/>/g)]
    .map((m) => m[1] ?? (m[0] === '<w:tab/>' ? '\t' : '\n'))
    .join('')
    .replaceAll('&amp;', '&');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-citations-'));
  allowed = join(dir, 'allowed');
  mkdirSync(join(allowed, 'paper'), { recursive: true });
  copyFileSync(REFS_PATH, join(allowed, 'paper/refs.bib'));
  copyFileSync(REFS_PATH, join(allowed, 'outside.bib'));
  writeFileSync(join(allowed, 'paper/paper.md'), `---\nbibliography: refs.bib\ncsl: vancouver\n---\n\n${MARKDOWN}`);
  writeFileSync(join(allowed, 'paper/escape.md'), `---\nbibliography: ../outside.bib\n---\n\n${MARKDOWN}`);
  store = await Store.open(join(dir, 'data'));
  services = new Services(store);
  await store.updateSettings({ mcp_output_dir: allowed, plan: 'team' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(services, { embedLimit: 10 * 1024 * 1024 }).connect(serverSide);
  client = new Client({ name: 'docwright-citations-test', version: '1.0.0' });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  await services.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('convert_markdown with citations', () => {
  it('the bibliography argument: APA by default', async () => {
    const result = await call('convert_markdown', {
      markdown: MARKDOWN,
      bibliography: readFileSync(REFS_PATH, 'utf8'),
    });
    expect(structured(result).warnings).toEqual([]);
    const docx = embeddedDocx(result);
    const text = bodyText(docx);
    expect(text).toContain('Markdown is old (Doe & Roe, 2020, p. 33); Smith (2019) agrees.');
    expect(text).toContain('Smith, J. (2019). Citations in Word. Journal of Documents, 12(3), 45–67.');
    const { ok, report } = await validateDocx(docx);
    expect(ok, report).toBe(true);
  });

  it('input_path: the bibliography and style its front matter names, read beside it', async () => {
    const docx = embeddedDocx(await call('convert_markdown', { input_path: 'paper/paper.md' }));
    const text = bodyText(docx);
    expect(text).toContain('Markdown is old (1); (2) agrees.');
    expect(text).toContain('2.\tSmith J. Citations in Word.');
  });

  it('refuses a bibliography outside the file’s folder and a style it does not know', async () => {
    const escape = toolError(await call('convert_markdown', { input_path: 'paper/escape.md' }));
    expect(escape).toEqual({
      code: 'validation_error',
      message:
        "the bibliography ../outside.bib is outside the markdown file's folder; give a file from elsewhere with --bibliography FILE on the command line, or send it with the request",
    });
    const style = toolError(
      await call('convert_markdown', { markdown: MARKDOWN, bibliography: readFileSync(REFS_PATH, 'utf8'), csl: 'x' }),
    );
    expect(style.code).toBe('validation_error');
  });
});
