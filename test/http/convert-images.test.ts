// POST /api/v1/convert as multipart/form-data over a real server: the markdown and its images in one request, the
// images embedded; bad parts refused with the error envelope; the JSON body keeps SPEC.md's placeholders.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { unzipSync } from 'fflate';
import { FormData, request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const DOC = resolve(import.meta.dirname, '../fixtures/images/doc');
let dir: string;
let server: RunningServer;
let agent: Agent;
let apiKey: string;
const url = (path: string) => `${server.discovery.url}${path}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-convert-images-'));
  server = await startServer({ dataDir: dir, port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '');
  const created = await call(agent, url('/api/settings/api-keys'), {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'images' },
  });
  expect(created.status).toBe(201);
  apiKey = (created.json() as { key: string }).key;
});

afterAll(async () => {
  await agent.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(path: string, type: string): Blob {
  return new Blob([readFileSync(join(DOC, path))], { type });
}

function form(markdown: string, extra: (f: FormData) => void = () => undefined): FormData {
  const f = new FormData();
  f.append('markdown', markdown);
  f.append('template_id', BUILTIN_TEMPLATE_ID);
  f.append('mapping_id', BUILTIN_MAPPING_ID);
  extra(f);
  return f;
}

async function post(body: FormData) {
  const res = await request(url('/api/v1/convert'), {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${apiKey}` },
    body,
  });
  const bytes = new Uint8Array(await res.body.arrayBuffer());
  return {
    status: res.statusCode,
    headers: res.headers,
    bytes,
    json: () => JSON.parse(new TextDecoder().decode(bytes)) as unknown,
  };
}

describe('POST /api/v1/convert, multipart with images', () => {
  it('embeds the images sent with the markdown, matched by relative path', async () => {
    const markdown = readFileSync(join(DOC, 'doc.md'), 'utf8');
    const res = await post(
      form(markdown, (f) => {
        f.append('images', file('img/wide.png', 'image/png'), 'img/wide.png');
        f.append('images', file('img/small.png', 'image/png'), 'img/small.png');
        f.append('images', file('img/photo.jpg', 'image/jpeg'), 'img/photo.jpg');
        f.append('images', file('img/equation.gif', 'image/gif'), 'img/equation.gif');
        f.append('images', file('diagram.svg', 'image/svg+xml'), 'diagram.svg');
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    const warnings = JSON.parse(String(res.headers['x-warnings'])) as string[];
    expect(warnings).toEqual([
      'image_missing: img/nothing.png',
      'image_outside_folder: ../outside.png',
      'remote_image: https://example.com/x.png',
    ]);
    const media = Object.keys(unzipSync(res.bytes)).filter((n) => n.startsWith('word/media/'));
    expect(media).toHaveLength(6);
    expect(part(res.bytes, 'word/document.xml')).toContain('descr="A photo"');
    expect((await validateDocx(res.bytes)).ok).toBe(true);
  });

  it('takes the markdown as a file part too, and answers the record with stats.images', async () => {
    const f = new FormData();
    f.append(
      'markdown',
      new Blob(['![Chip](img/small.png) and ![Gone](img/gone.png)\n'], { type: 'text/markdown' }),
      'doc.md',
    );
    f.append('template_id', BUILTIN_TEMPLATE_ID);
    f.append('mapping_id', BUILTIN_MAPPING_ID);
    f.append('response_format', 'json');
    f.append('images', file('img/small.png', 'image/png'), 'img/small.png');
    const res = await post(f);
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'completed',
      warnings: ['image_missing: img/gone.png'],
      stats: { images: 2 },
      // Named after the markdown file sent, as the app names it (no `filename` field).
      filename: 'doc.docx',
    });
  });

  it('refuses bad parts with the error envelope and a clear message', async () => {
    const cases: [FormData, number, string, RegExp][] = [
      [
        form('x', (f) => {
          f.append('colour', 'blue');
        }),
        422,
        'validation_error',
        /colour/,
      ],
      [
        form('x', (f) => {
          f.append('attachment', file('img/small.png', 'image/png'), 'a.png');
        }),
        422,
        'validation_error',
        /attachment/,
      ],
      [
        form('x', (f) => {
          f.append('images', 'img/small.png');
        }),
        422,
        'validation_error',
        /^images: each image must be sent as a file with its relative path as filename/,
      ],
      [
        form('x', (f) => {
          f.append('images', new Blob(['hello'], { type: 'text/plain' }), 'notes.txt');
        }),
        422,
        'validation_error',
        /text\/plain/,
      ],
      [
        form('x', (f) => {
          f.append('images', file('img/small.png', 'image/png'), '../up.png');
        }),
        422,
        'validation_error',
        /up\.png/,
      ],
      [
        form('x', (f) => {
          f.append('images', file('img/small.png', 'image/png'), '/etc/a.png');
        }),
        422,
        'validation_error',
        /a\.png/,
      ],
      [
        form('x', (f) => {
          f.append('images', file('img/small.png', 'image/png'), 'a.png');
          f.append('images', file('img/small.png', 'image/png'), './a.png');
        }),
        422,
        'validation_error',
        /twice/,
      ],
      [
        form('x', (f) => {
          f.append('images', new Blob([new Uint8Array(10 * 1024 * 1024 + 1)], { type: 'image/png' }), 'big.png');
        }),
        413,
        'payload_too_large',
        /big\.png/,
      ],
      [
        form('x', (f) => {
          for (let i = 0; i <= 200; i++)
            f.append('images', new Blob([new Uint8Array(8)], { type: 'image/png' }), `i${i}.png`);
        }),
        413,
        'payload_too_large',
        /200/,
      ],
      [
        (() => {
          const f = new FormData();
          f.append('template_id', BUILTIN_TEMPLATE_ID);
          f.append('mapping_id', BUILTIN_MAPPING_ID);
          return f;
        })(),
        422,
        'validation_error',
        /markdown/,
      ],
    ];
    cases.push([form('x'.repeat(10 * 1024 * 1024 + 1)), 413, 'payload_too_large', /markdown/]);
    for (const [body, status, code, message] of cases) {
      const res = await post(body);
      const error = (res.json() as { error: { code: string; message: string } }).error;
      expect({ status: res.status, code: error.code }).toEqual({ status, code });
      expect(error.message).toMatch(message);
    }
    // Nothing refused was charged or stored.
    const list = await call(agent, url('/api/v1/conversions'), { headers: { authorization: `Bearer ${apiKey}` } });
    expect((list.json() as { total: number }).total).toBe(2);
  });

  it('keeps the JSON body as SPEC.md says: placeholders, whatever files exist', async () => {
    const res = await call(agent, url('/api/v1/convert'), {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}` },
      body: {
        markdown: '![Chip](img/small.png)\n',
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: BUILTIN_MAPPING_ID,
        response_format: 'json',
      },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ warnings: ['image_placeholder: Chip'], stats: { images: 1 } });
  });

  it('documents the multipart form in the OpenAPI document', async () => {
    const res = await call(agent, url('/api/v1/openapi.json'), { headers: { authorization: `Bearer ${apiKey}` } });
    const doc = res.json() as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, unknown> } } }>;
    };
    const content = doc.paths['/api/v1/convert']?.post?.requestBody?.content ?? {};
    expect(Object.keys(content).sort()).toEqual(['application/json', 'multipart/form-data']);
    expect(JSON.stringify(content['multipart/form-data'])).toContain('ConvertUpload');
  });
});
