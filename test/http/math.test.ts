// Math (issue 33, item 1) on the surfaces: the JSON API (app.inject) and the command line (a real process) convert
// `$…$` to Word equations by default (SPEC defines no output for it), keep dollars as text with the mapping option
// `math: none`, turn ```math fences into equations only with `math: dollars_and_fences` (SPEC makes them code
// blocks), refuse an unknown value, and report TeX that stays TeX as `math_unsupported` with its line.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID, Store } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';

const ADMIN = { 'x-docwright-admin': 'admin-token-for-tests', host: '127.0.0.1:47825' };
const MARKDOWN = 'Energy $E = mc^2$ costs $5 and $10.\n\n```math\na^2\n```\n\nBad: $\\nosuchcommand$\n';
const bin = resolve(import.meta.dirname, '../../bin/docwright.js');

let app: FastifyInstance;
let store: Store;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-math-'));
  store = await Store.open(join(dir, 'data'));
  app = await buildApp({
    store,
    secret: randomBytes(32),
    adminToken: ADMIN['x-docwright-admin'],
    uiToken: 'ui',
    now: () => new Date('2026-03-10T09:00:00Z'),
    port: 47825,
  });
  await app.ready();
  await app.inject({ method: 'PATCH', url: '/api/settings', headers: ADMIN, payload: { plan: 'team' } });
});
afterAll(async () => {
  await app.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (url: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'POST', url, headers: ADMIN, payload });

interface ConversionRecord {
  warnings: string[];
  warning_details: { warning: string; line: number | null }[];
  download_url: string;
}

async function convertWith(mappingId: string): Promise<{ xml: string; record: ConversionRecord }> {
  const res = await post('/api/v1/convert', {
    markdown: MARKDOWN,
    template_id: BUILTIN_TEMPLATE_ID,
    mapping_id: mappingId,
    response_format: 'json',
  });
  expect(res.statusCode, res.body).toBe(200);
  const record = res.json<ConversionRecord>();
  const download = await app.inject({ method: 'GET', url: record.download_url, headers: ADMIN });
  const docx = Uint8Array.from(download.rawPayload);
  const { ok, report } = await validateDocx(docx);
  expect(ok, report).toBe(true);
  return { xml: part(docx, 'word/document.xml'), record };
}

async function mapping(rules: Record<string, unknown>): Promise<string> {
  const res = await post('/api/v1/mappings', { name: JSON.stringify(rules), template_id: BUILTIN_TEMPLATE_ID, rules });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

describe('math over the JSON API', () => {
  it('by default: equations, prices as text, ```math a code block, unsupported TeX warned with its line', async () => {
    const { xml, record } = await convertWith(BUILTIN_MAPPING_ID);
    expect(xml.match(/<m:oMath>/g)).toHaveLength(1);
    expect(xml).toContain('costs $5 and $10.');
    expect(xml).toContain('>a^2</w:t>');
    expect(xml).toContain('$\\nosuchcommand$');
    expect(record.warnings).toEqual(['math_unsupported: \\nosuchcommand']);
    expect(record.warning_details[0]).toMatchObject({ warning: 'math_unsupported: \\nosuchcommand', line: 7 });
  });

  it('math: dollars_and_fences makes the fence an equation; math: none keeps every dollar as text', async () => {
    const fences = await convertWith(await mapping({ math: 'dollars_and_fences' }));
    expect(fences.xml.match(/<m:oMathPara>/g)).toHaveLength(1);
    expect(fences.xml).not.toContain('>a^2</w:t>');
    const none = await convertWith(await mapping({ math: 'none' }));
    expect(none.xml).not.toContain('<m:oMath');
    expect(none.xml).toContain('Energy $E = mc^2$ costs $5 and $10.');
    expect(none.record.warnings).toEqual([]);
  });

  it('an unknown value is a 422 validation_error naming the field', async () => {
    const res = await post('/api/v1/mappings', {
      name: 'Bad',
      template_id: BUILTIN_TEMPLATE_ID,
      rules: { math: 'on' },
    });
    expect(res.statusCode, res.body).toBe(422);
    const body = res.json<{ error: { code: string; message: string } }>();
    expect(body.error.code).toBe('validation_error');
    expect(body.error.message).toContain('rules.math');
  });
});

/** Runs `docwright ARGS` in the test's folder; never rejects. */
function docwright(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DOCWRIGHT_HOME: join(dir, 'cli-home') },
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

describe('math on the command line', () => {
  it('equations by default, text with a mapping file of math: none, the warning printed', async () => {
    writeFileSync(join(dir, 'in.md'), MARKDOWN);
    const on = await docwright(['convert', 'in.md', '-o', 'on.docx']);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stderr).toMatch(/warning: line \d+: math_unsupported: \\nosuchcommand/);
    expect(part(readFileSync(join(dir, 'on.docx')), 'word/document.xml')).toContain('<m:oMath>');
    writeFileSync(join(dir, 'none.json'), JSON.stringify({ math: 'none' }));
    const off = await docwright(['convert', 'in.md', '-o', 'off.docx', '--mapping', 'none.json']);
    expect(off.code, off.stderr).toBe(0);
    expect(part(readFileSync(join(dir, 'off.docx')), 'word/document.xml')).not.toContain('<m:oMath');
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ math: 'on' }));
    const bad = await docwright(['convert', 'in.md', '-o', 'bad.docx', '--mapping', 'bad.json']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rules.math must be one of "dollars", "dollars_and_fences", "none"');
  });
});
