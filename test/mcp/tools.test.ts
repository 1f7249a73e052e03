// The MCP tools and resources themselves, through the SDK's own client over its in-memory transport pair, against
// real services over a real data directory: what each tool answers, the REST error codes in its errors, the .docx
// embedded or linked, and writing files only inside the folder the user allowed.
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../server/mcp/server.ts';
import { Services } from '../../server/services.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';
import { CORPORATE_RULES } from '../helpers/corporate.ts';
import { fixture, part, validateDocx } from '../helpers/docx.ts';
import { DOCX, embeddedDocx, structured, toolError } from './client.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

let dir: string;
let outside: string;
let store: Store;
let services: Services;
let client: Client;
let smallClient: Client;
let corporateId: string;

async function connect(embedLimit?: number): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(services, embedLimit === undefined ? {} : { embedLimit }).connect(serverSide);
  const c = new Client({ name: 'docwright-test', version: '1.0.0' });
  await c.connect(clientSide);
  return c;
}

const call = (name: string, args: Record<string, unknown>, c = client) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const usage = () => store.usage(new Date());

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-mcp-tools-'));
  outside = mkdtempSync(join(tmpdir(), 'dw-mcp-outside-'));
  store = await Store.open(join(dir, 'data'));
  services = new Services(store);
  const at = new Date().toISOString();
  const template = await store.addTemplate(
    { id: randomUUID(), name: 'Corporate', description: 'House style', version: 1, created_at: at, updated_at: at },
    fixture('templates', 'corporate.docx'),
  );
  corporateId = template.id;
  await services.createMapping({ name: 'Corporate mapping', template_id: corporateId, rules: CORPORATE_RULES });
  client = await connect();
  smallClient = await connect(1000);
});

afterAll(async () => {
  await client?.close();
  await smallClient?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('listing', () => {
  it('lists the six tools with described, closed input schemas and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'convert_markdown',
      'list_templates',
      'list_mappings',
      'get_template_styles',
      'validate_mapping',
      'get_conversion',
    ]);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(150);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((property as { description?: string }).description, `${tool.name}.${name}`).toMatch(/\w{3,}/);
      }
      expect(tool.outputSchema?.type).toBe('object');
    }
    const convert = tools[0];
    // markdown, or input_path (a file in the allowed folder, with its images): one of them, checked by the tool.
    expect(convert?.inputSchema.required ?? []).toEqual([]);
    expect(convert?.annotations?.readOnlyHint).toBe(false);
    expect(tools[1]?.annotations?.readOnlyHint).toBe(true);
  });

  it('list_templates: the built-in template first, each with its mappings', async () => {
    const { templates } = structured<{
      templates: { id: string; name: string; builtin: boolean; mappings: { id: string; name: string }[] }[];
    }>(await call('list_templates', {}));
    expect(templates.map((t) => t.name)).toEqual(['Docwright Default', 'Corporate']);
    expect(templates[0]).toMatchObject({
      id: BUILTIN_TEMPLATE_ID,
      builtin: true,
      mappings: [{ id: BUILTIN_MAPPING_ID, name: 'Docwright Default' }],
    });
    expect(templates[1]?.mappings.map((m) => m.name)).toEqual(['Corporate mapping']);
  });

  it("list_mappings: all, or one template's by name", async () => {
    const all = structured<{ mappings: { name: string }[] }>(await call('list_mappings', {}));
    expect(all.mappings.map((m) => m.name)).toEqual(['Docwright Default', 'Corporate mapping']);
    const own = structured<{ mappings: { name: string; template_id: string; rules: unknown }[] }>(
      await call('list_mappings', { template: '  corporate ' }),
    );
    expect(own.mappings).toHaveLength(1);
    expect(own.mappings[0]).toMatchObject({ template_id: corporateId, rules: CORPORATE_RULES });
    expect(toolError(await call('list_mappings', { template: 'Nope' }))).toEqual({
      code: 'not_found',
      message: expect.stringContaining('list_templates'),
    });
  });

  it('get_template_styles: the names mappings use, with their types', async () => {
    const { template, styles } = structured<{ template: { id: string }; styles: { name: string; type: string }[] }>(
      await call('get_template_styles', { template: corporateId }),
    );
    expect(template.id).toBe(corporateId);
    expect(styles).toContainEqual(expect.objectContaining({ name: 'Corp Body', type: 'paragraph' }));
    expect(styles).toContainEqual(expect.objectContaining({ name: 'Corp Table', type: 'table' }));
  });
});

describe('convert_markdown', () => {
  it('converts with the built-in pair by default: the record, a valid embedded .docx, counted once, channel mcp', async () => {
    const before = usage();
    const result = await call('convert_markdown', {
      markdown: '# Report\n\nSome **bold** text.\n\n- one\n- two\n',
      filename: 'report',
    });
    const record = structured(result);
    expect(record).toMatchObject({
      status: 'completed',
      filename: 'report.docx',
      warnings: [],
      stats: { headings: 1, paragraphs: 3, lists: 1, tables: 0, code_blocks: 0, images: 0 },
      template_id: BUILTIN_TEMPLATE_ID,
      mapping_id: BUILTIN_MAPPING_ID,
      template_name: 'Docwright Default',
      saved_to: null,
      document: { uri: `docwright://conversions/${record.conversion_id}/document`, mime_type: DOCX, embedded: true },
    });
    expect(record.conversion_id).toMatch(UUID);
    expect(record.download_url).toBe(`/api/v1/conversions/${record.conversion_id}/download`);
    const docx = embeddedDocx(result);
    expect(docx.byteLength).toBe(record.document.size);
    expect(Buffer.from(docx).equals(readFileSync(join(dir, 'data', 'outputs', `${record.conversion_id}.docx`)))).toBe(
      true,
    );
    const validation = await validateDocx(docx);
    expect(validation.ok, validation.report).toBe(true);
    expect(part(docx, 'word/document.xml')).toContain('Report');
    expect(usage()).toBe(before + 1);
    expect(store.getConversion(record.conversion_id)?.channel).toBe('mcp');
    // The text block carries the same record, for clients that do not read structured content.
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text)).toEqual(record);
  });

  it('takes a template by name (its mapping follows) or a mapping by name (its template follows)', async () => {
    const byTemplate = structured(await call('convert_markdown', { markdown: 'Body text', template: 'CORPORATE' }));
    expect(byTemplate).toMatchObject({ template_id: corporateId, mapping_name: 'Corporate mapping', warnings: [] });
    const byMapping = structured(
      await call('convert_markdown', { markdown: 'Body text', mapping: 'corporate mapping' }),
    );
    expect(byMapping).toMatchObject({ template_id: corporateId, template_name: 'Corporate' });
    // A mapping of another template is allowed, as in the REST API; the styles it lacks are warnings.
    const crossed = structured(
      await call('convert_markdown', {
        markdown: '> quote',
        template: BUILTIN_TEMPLATE_ID,
        mapping: 'Corporate mapping',
      }),
    );
    expect(crossed.template_id).toBe(BUILTIN_TEMPLATE_ID);
    expect(crossed.warnings).toContain('missing_style: Corp Quote');
  });

  it('bad arguments: validation_error naming each field, REST habits pointed at the right names; nothing counted', async () => {
    const before = usage();
    expect(toolError(await call('convert_markdown', {}))).toEqual({
      code: 'validation_error',
      message: 'markdown is required (or input_path: a markdown file in the allowed folder)',
    });
    expect(toolError(await call('convert_markdown', { markdown: '' }))).toEqual({
      code: 'validation_error',
      message: 'markdown must have at least 1 character',
    });
    expect(toolError(await call('convert_markdown', { markdown: 42 }))).toEqual({
      code: 'validation_error',
      message: 'markdown must be a string',
    });
    expect(toolError(await call('convert_markdown', { markdown: '# x', template_id: BUILTIN_TEMPLATE_ID }))).toEqual({
      code: 'validation_error',
      message: 'template_id is not a known field (use "template" and "mapping": each takes an id or a name)',
    });
    expect(
      toolError(await call('convert_markdown', { markdown: '# x', filename: 'x'.repeat(201), overwrite: 'yes' })),
    ).toEqual({
      code: 'validation_error',
      message: 'filename must have at most 200 characters; overwrite must be a boolean',
    });
    expect(toolError(await call('convert_markdown', { markdown: '# x', template: 'No such template' }))).toEqual({
      code: 'not_found',
      message: 'No template with the id or name "No such template"; list_templates shows them.',
    });
    expect(toolError(await call('convert_markdown', { markdown: '# x', mapping: randomUUID() })).code).toBe(
      'not_found',
    );
    expect(usage()).toBe(before);
  });

  it('an unknown tool is a protocol error (InvalidParams) naming the tools', async () => {
    await expect(call('convert', { markdown: '# x' })).rejects.toThrow(
      /Unknown tool convert; the tools are convert_markdown, list_templates/,
    );
  });

  it('a document over the embedding limit comes as a resource link, read with resources/read', async () => {
    const result = await call('convert_markdown', { markdown: '# Large enough\n\nText.' }, smallClient);
    const record = structured(result);
    expect(record.document.embedded).toBe(false);
    expect(record.document.size).toBeGreaterThan(1000);
    const link = result.content.find((c) => c.type === 'resource_link');
    expect(link).toMatchObject({
      type: 'resource_link',
      uri: record.document.uri,
      name: 'document.docx',
      mimeType: DOCX,
    });
    expect(result.content.some((c) => c.type === 'resource')).toBe(false);
    const read = await smallClient.readResource({ uri: record.document.uri });
    const content = read.contents[0] as { mimeType: string; blob: string };
    expect(content.mimeType).toBe(DOCX);
    const bytes = Buffer.from(content.blob, 'base64');
    expect(bytes.length).toBe(record.document.size);
    expect((await validateDocx(new Uint8Array(bytes))).ok).toBe(true);
  });
});

describe('get_conversion and validate_mapping (never counted)', () => {
  it('get_conversion: the record again, with the document on request; unknown or malformed ids are not_found', async () => {
    const made = structured(await call('convert_markdown', { markdown: '# Again' }));
    const before = usage();
    const again = structured(await call('get_conversion', { conversion_id: made.conversion_id }));
    const { template_name: _t, mapping_name: _m, mapping_matched: _mm, saved_to: _s, document, ...record } = made;
    expect(again).toEqual({ ...record, document: { ...document, embedded: false } });
    const withDocument = await call('get_conversion', { conversion_id: made.conversion_id, include_document: true });
    expect(embeddedDocx(withDocument).byteLength).toBe(made.document.size);
    expect(toolError(await call('get_conversion', { conversion_id: randomUUID() })).code).toBe('not_found');
    expect(toolError(await call('get_conversion', { conversion_id: '../../db.json' })).code).toBe('not_found');
    expect(usage()).toBe(before);
  });

  it('validate_mapping: warnings for missing styles, for rules or a stored mapping; bad rules are validation_error', async () => {
    const before = usage();
    expect(structured(await call('validate_mapping', { template: 'Corporate', rules: CORPORATE_RULES }))).toEqual({
      template: { id: corporateId, name: 'Corporate' },
      valid: true,
      warnings: [],
    });
    const wrong = structured<{ valid: boolean; warnings: string[] }>(
      await call('validate_mapping', {
        template: corporateId,
        rules: { paragraph: 'No Such Style', table: { style: 'Corp Body' } },
      }),
    );
    expect(wrong).toMatchObject({
      valid: false,
      warnings: ['missing_style: No Such Style', 'missing_style: Corp Body'],
    });
    const stored = structured<{ template: { id: string }; warnings: string[] }>(
      await call('validate_mapping', { mapping: 'Corporate mapping', template: 'Docwright Default' }),
    );
    expect(stored.template.id).toBe(BUILTIN_TEMPLATE_ID);
    expect(stored.warnings).toContain('missing_style: Corp Body');
    expect(
      structured<{ template: { id: string } }>(await call('validate_mapping', { mapping: 'Corporate mapping' }))
        .template.id,
    ).toBe(corporateId);
    expect(toolError(await call('validate_mapping', { template: 'Corporate' }))).toEqual({
      code: 'validation_error',
      message: 'rules or mapping is required (exactly one of them)',
    });
    const badRules = toolError(await call('validate_mapping', { rules: { heading: { '7': 'Heading 7' } } }));
    expect(badRules).toEqual({ code: 'validation_error', message: 'rules.heading.7 is not a known field' });
    expect(toolError(await call('validate_mapping', { rules: { paragraph: 5 } }))).toEqual({
      code: 'validation_error',
      message: 'rules.paragraph must be a string',
    });
    expect(usage()).toBe(before);
  });
});

describe('resources', () => {
  it('lists the templates and recent conversions; reads a template with its styles and mappings', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain(`docwright://templates/${BUILTIN_TEMPLATE_ID}`);
    expect(uris).toContain(`docwright://templates/${corporateId}`);
    expect(uris.filter((u) => /^docwright:\/\/conversions\/[^/]+$/.test(u)).length).toBeGreaterThan(0);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'docwright://templates/{id}',
      'docwright://conversions/{id}',
      'docwright://conversions/{id}/document',
    ]);
    const read = await client.readResource({ uri: `docwright://templates/${corporateId}` });
    const template = JSON.parse((read.contents[0] as { text: string }).text) as {
      name: string;
      styles: { name: string }[];
      mappings: { name: string }[];
    };
    expect(template.name).toBe('Corporate');
    expect(template.styles.map((s) => s.name)).toContain('Corp Quote');
    expect(template.mappings.map((m) => m.name)).toEqual(['Corporate mapping']);
  });

  it('an unknown resource is JSON-RPC error -32002 whose message starts with not_found', async () => {
    await expect(client.readResource({ uri: `docwright://conversions/${randomUUID()}` })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringMatching(/^MCP error -32002: not_found: Conversion /),
    });
    await expect(client.readResource({ uri: `docwright://templates/${randomUUID()}` })).rejects.toMatchObject({
      code: -32002,
    });
  });
});

describe('output_path: only inside the folder the user allowed', () => {
  let allowed: string;

  it('is refused (forbidden, nothing converted or counted) while no folder is allowed', async () => {
    const before = usage();
    const error = toolError(await call('convert_markdown', { markdown: '# x', output_path: join(outside, 'x.docx') }));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('mcp_output_dir');
    expect(existsSync(join(outside, 'x.docx'))).toBe(false);
    expect(usage()).toBe(before);
  });

  it('writes inside the allowed folder: a relative file, a folder, an absolute path; the reply links the document', async () => {
    allowed = join(dir, 'exports');
    mkdirSync(join(allowed, 'sub'), { recursive: true });
    await store.updateSettings({ mcp_output_dir: allowed });
    const real = realpathSync(allowed);
    const first = await call('convert_markdown', { markdown: '# Saved', output_path: 'report.docx' });
    const saved = structured(first);
    expect(saved.saved_to).toBe(join(real, 'report.docx'));
    expect(saved.document.embedded).toBe(false);
    expect(first.content.some((c) => c.type === 'resource_link')).toBe(true);
    expect((await validateDocx(join(real, 'report.docx'))).ok).toBe(true);
    expect(
      structured(await call('convert_markdown', { markdown: '# x', filename: 'named', output_path: 'sub/' })).saved_to,
    ).toBe(join(real, 'sub', 'named.docx'));
    expect(
      structured(await call('convert_markdown', { markdown: '# x', output_path: join(allowed, 'sub', 'plain') }))
        .saved_to,
    ).toBe(join(real, 'sub', 'plain.docx'));
  });

  it('refuses a sibling folder whose name starts with the allowed one (…/exports-evil next to …/exports)', async () => {
    const before = usage();
    const sibling = `${allowed}-evil`;
    mkdirSync(sibling, { recursive: true });
    for (const path of [join(sibling, 'x.docx'), `../${basename(sibling)}/x.docx`, `${sibling}/`, sibling]) {
      const error = toolError(await call('convert_markdown', { markdown: '# x', output_path: path }));
      expect(error.code, path).toBe('forbidden');
      expect(error.message).toContain('outside the folder the user allowed');
    }
    expect(readdirSync(sibling)).toEqual([]);
    expect(usage()).toBe(before);
  });

  it('refuses paths that leave it (.., absolute elsewhere, a symbolic link out), and existing files unless overwrite', async () => {
    const before = usage();
    symlinkSync(outside, join(allowed, 'link-out'));
    writeFileSync(join(outside, 'victim.docx'), 'keep me');
    symlinkSync(join(outside, 'victim.docx'), join(allowed, 'file-link.docx'));
    for (const path of [
      '../escape.docx',
      join(outside, 'abs.docx'),
      'link-out/through.docx',
      'sub/../../escape2.docx',
    ]) {
      const error = toolError(await call('convert_markdown', { markdown: '# x', output_path: path }));
      expect(error.code, path).toBe('forbidden');
      expect(error.message).toContain('outside the folder the user allowed');
    }
    expect(
      toolError(await call('convert_markdown', { markdown: '# x', output_path: 'file-link.docx', overwrite: true }))
        .code,
    ).toBe('forbidden');
    expect(toolError(await call('convert_markdown', { markdown: '# x', output_path: 'report.docx' }))).toEqual({
      code: 'validation_error',
      message: expect.stringContaining('exists; pass overwrite: true'),
    });
    expect(toolError(await call('convert_markdown', { markdown: '# x', output_path: 'missing/x.docx' })).code).toBe(
      'validation_error',
    );
    expect(readFileSync(join(outside, 'victim.docx'), 'utf8')).toBe('keep me');
    expect(existsSync(join(dir, 'escape.docx')) || existsSync(join(outside, 'through.docx'))).toBe(false);
    expect(usage()).toBe(before);
    expect(
      structured(await call('convert_markdown', { markdown: '# New', output_path: 'report.docx', overwrite: true }))
        .saved_to,
    ).toBe(join(realpathSync(allowed), 'report.docx'));
    expect(usage()).toBe(before + 1);
  });
});
