// The markdown dialect (issue 33, item 7) on every surface over a real server: the JSON and multipart API's `dialect`
// field wins over the front matter's `markdown:`, an unknown value is a 422 validation_error (as every field's); the command line's
// --from (gfm, pandoc, markdown) converting alone and through the running server, a wrong value one sentence.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FormData, request, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { startKeyedServer } from '../helpers/keyed-server.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const bin = resolve(import.meta.dirname, '../../bin/docwright.js');
/** GFM reads `~2~` as strikethrough, pandoc's dialect as subscript; `^2^` and `^[…]` are read in both. */
const MARKDOWN = 'Water is H~2~O, E = mc^2^.^[A note.]\n';
const FRONT_PANDOC = `---\nmarkdown: pandoc\n---\n\n${MARKDOWN}`;
let dir: string;
let server: RunningServer;
let agent: Agent;
let apiKey: string;
const url = (path: string) => `${server.discovery.url}${path}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-dialect-'));
  ({ server, agent, key: apiKey } = await startKeyedServer(join(dir, 'data'), 'dialect'));
});

afterAll(async () => {
  await agent.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the document says of H~2~O: subscript, strikethrough, or neither. */
async function reading(docx: Uint8Array): Promise<'subscript' | 'strikethrough' | 'text'> {
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
  const xml = part(docx, 'word/document.xml');
  // Superscript and the inline note are read whatever the dialect.
  expect(xml).toContain('<w:vertAlign w:val="superscript"/>');
  expect(xml).toContain('<w:footnoteReference w:id="1"/>');
  if (xml.includes('<w:vertAlign w:val="subscript"/>')) return 'subscript';
  return xml.includes('<w:strike/>') ? 'strikethrough' : 'text';
}

async function postJson(body: Record<string, unknown>) {
  const res = await request(url('/api/v1/convert'), {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID, ...body }),
  });
  return { status: res.statusCode, bytes: new Uint8Array(await res.body.arrayBuffer()) };
}

async function postForm(fields: Record<string, string>) {
  const form = new FormData();
  form.append('template_id', BUILTIN_TEMPLATE_ID);
  form.append('mapping_id', BUILTIN_MAPPING_ID);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const res = await request(url('/api/v1/convert'), {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  return { status: res.statusCode, bytes: new Uint8Array(await res.body.arrayBuffer()) };
}

const envelope = (bytes: Uint8Array) =>
  JSON.parse(new TextDecoder().decode(bytes)) as { error: { code: string; message: string } };

describe('dialect over the JSON and multipart API', () => {
  it('GFM by default, the front matter names pandoc, the request field wins over it', async () => {
    const plain = await postJson({ markdown: MARKDOWN });
    expect(plain.status).toBe(200);
    expect(await reading(plain.bytes)).toBe('strikethrough');
    const front = await postJson({ markdown: FRONT_PANDOC });
    expect(await reading(front.bytes)).toBe('subscript');
    const asked = await postJson({ markdown: MARKDOWN, dialect: 'pandoc' });
    expect(await reading(asked.bytes)).toBe('subscript');
    const overruled = await postJson({ markdown: FRONT_PANDOC, dialect: 'gfm' });
    expect(await reading(overruled.bytes)).toBe('strikethrough');
  });

  it('multipart takes the same field', async () => {
    const asked = await postForm({ markdown: MARKDOWN, dialect: 'pandoc' });
    expect(asked.status).toBe(200);
    expect(await reading(asked.bytes)).toBe('subscript');
    const overruled = await postForm({ markdown: FRONT_PANDOC, dialect: 'gfm' });
    expect(await reading(overruled.bytes)).toBe('strikethrough');
  });

  it('an unknown dialect is a 422 validation_error, in JSON and multipart alike', async () => {
    for (const res of [
      await postJson({ markdown: MARKDOWN, dialect: 'commonmark' }),
      await postForm({ markdown: MARKDOWN, dialect: 'commonmark' }),
    ]) {
      expect(res.status).toBe(422);
      const { error } = envelope(res.bytes);
      expect(error.code).toBe('validation_error');
      expect(error.message).toContain('dialect');
    }
  });
});

/** Runs `docwright ARGS` in the test's folder with DOCWRIGHT_HOME `home`; never rejects. */
function docwright(args: string[], home: string): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DOCWRIGHT_HOME: home },
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('close', (code) => {
      done({ code: code ?? -1, stderr: err });
    });
  });
}

describe('--from on the command line', () => {
  it('converting alone and through the running server: pandoc and markdown read ~2~ as subscript', async () => {
    writeFileSync(join(dir, 'in.md'), MARKDOWN);
    writeFileSync(join(dir, 'front.md'), FRONT_PANDOC);
    // Each process costs about a second: the readings split between converting alone and through the server.
    const cases: [string, string[], 'subscript' | 'strikethrough'][] = [
      [join(dir, 'alone'), ['in.md', '--from', 'pandoc'], 'subscript'],
      [join(dir, 'alone'), ['front.md', '--from', 'gfm'], 'strikethrough'],
      [join(dir, 'data'), ['in.md', '--from', 'markdown'], 'subscript'],
      [join(dir, 'data'), ['front.md'], 'subscript'],
      [join(dir, 'data'), ['in.md'], 'strikethrough'],
    ];
    for (const [home, args, expected] of cases) {
      const run = await docwright(['convert', ...args, '-o', 'out.docx'], home);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr.includes('converted by the running server'), run.stderr).toBe(home.endsWith('data'));
      expect(await reading(readFileSync(join(dir, 'out.docx'))), `${home} ${args.join(' ')}`).toBe(expected);
    }
  });

  it('an unknown --from is one sentence and exit status 2', async () => {
    const run = await docwright(['convert', 'in.md', '--from', 'commonmark', '-o', 'bad.docx'], join(dir, 'alone'));
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(
      "--from must be gfm, pandoc or markdown (pandoc's name for its dialect), not commonmark",
    );
  });
});
