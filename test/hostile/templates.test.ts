// Hostile template uploads against a real server on a real port (HTTPS): a non-zip, zip bombs of every kind, macro
// documents, DTDs and external entities (XXE), a 200 MB body, path traversal inside the zip. Each is refused with
// a clear 4xx envelope; no entity is resolved (a listener would see it), nothing is written anywhere (the data
// directory is the same file for file before and after, nothing appears next to it), and the server keeps serving.
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { connect } from 'node:tls';
import { unzipSync } from 'fflate';
import { fetch, FormData, type Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTemplate } from '../../server/convert/index.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { call, trustingAgent } from '../helpers/docwright-process.ts';
import { craftOverlappingZip, craftZip, deflateZeros, entry, zerosCrc, type CraftEntry } from '../helpers/zip-craft.ts';

const SOAK = Boolean(process.env.SOAK);
const MB = 1024 * 1024;

let dir: string;
let server: RunningServer;
let agent: Agent;
let auth: Record<string, string>;
let owned: { id: string; version: number };
/** Requests to the listener that stands in for an attacker's entity URL. */
const entityHits: string[] = [];
let listener: Server;
let entityUrl: string;
const marker = `dw-escape-${randomBytes(6).toString('hex')}`;

/** The parts of the built-in template, as crafted entries (a real, valid docx to hide things in). */
function baseEntries(replace: Record<string, string | Uint8Array> = {}): CraftEntry[] {
  const parts = unzipSync(defaultTemplate());
  const names = new Set([...Object.keys(parts), ...Object.keys(replace)]);
  return [...names].map((name) => entry(name, replace[name] ?? (parts[name] as Uint8Array)));
}

/** COUNT deflated parts of 1 MB of zeros each (word/media/NAMEi.bin), sharing one compressed body. */
async function zeroParts(count: number, name: string): Promise<CraftEntry[]> {
  const body = await deflateZeros(MB);
  const crc = zerosCrc(MB);
  return Array.from({ length: count }, (_, i) => ({
    name: `word/media/${name}${String(i)}.bin`,
    body,
    method: 8,
    size: MB,
    crc,
  }));
}

function docxPart(name: string): string {
  return Buffer.from(unzipSync(defaultTemplate())[name] as Uint8Array).toString('utf8');
}

/** Every file under the data directory with its size and modification time, and db.json's templates as stored. */
function snapshot() {
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else if (name !== 'db.json') files[relative(dir, path)] = `${st.size}:${st.mtimeMs}`;
    }
  };
  walk(dir);
  const db = JSON.parse(readFileSync(join(dir, 'db.json'), 'utf8')) as {
    templates: unknown;
    mappings: unknown;
    conversions: unknown;
  };
  return { files, templates: db.templates, mappings: db.mappings, conversions: db.conversions };
}

async function upload(bytes: Uint8Array, options: { method?: 'POST' | 'PUT'; filename?: string } = {}) {
  const form = new FormData();
  form.append('name', 'hostile');
  form.append('file', new Blob([new Uint8Array(bytes)]), options.filename ?? 'hostile.docx');
  const url =
    options.method === 'PUT'
      ? `${server.discovery.url}/api/v1/templates/${owned.id}/file`
      : `${server.discovery.url}/api/v1/templates`;
  const res = await fetch(url, { method: options.method ?? 'POST', body: form, headers: auth, dispatcher: agent });
  const text = await res.text();
  return {
    status: res.status,
    body: JSON.parse(text) as { error?: { code: string; message: string }; id?: string; version?: number },
  };
}

/** Uploads the bytes as a new template and as a replacement file; both must be refused alike, leaving no trace. */
async function expectRefused(bytes: Uint8Array, message: RegExp, status = 422) {
  const before = snapshot();
  for (const method of ['POST', 'PUT'] as const) {
    const res = await upload(bytes, { method });
    expect(res.status, `${method}: ${JSON.stringify(res.body)}`).toBe(status);
    expect(res.body.error?.code).toBe(status === 413 ? 'payload_too_large' : 'validation_error');
    if (status === 422) expect(res.body.error?.message).toMatch(/^file: /);
    expect(res.body.error?.message).toMatch(message);
  }
  expect(snapshot(), 'the data directory is unchanged').toEqual(before);
  const still = await call(agent, `${server.discovery.url}/api/v1/templates/${owned.id}`, { headers: auth });
  expect(still.json()).toMatchObject({ id: owned.id, version: owned.version });
  expect((await call(agent, `${server.discovery.url}/api/health`)).status).toBe(200);
}

beforeAll(async () => {
  listener = createServer((req, res) => {
    entityHits.push(req.url ?? '');
    res.end('<!ENTITY leaked "LEAKED">');
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  const address = listener.address();
  entityUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  dir = mkdtempSync(join(tmpdir(), 'dw-hostile-templates-'));
  server = await startServer({ dataDir: dir, port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '');
  const key = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'hostile' },
  });
  auth = { authorization: `Bearer ${(key.json() as { key: string }).key}` };
  // One template of our own, so that PUT …/file has something to (not) replace.
  const first = await upload(defaultTemplate());
  expect(first.status).toBe(201);
  owned = { id: first.body.id ?? '', version: first.body.version ?? 0 };
  // The key's last_used_at is written now; later requests within the minute leave db.json alone.
});

afterAll(async () => {
  await agent?.close();
  await server?.close();
  await new Promise((r) => listener?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
  // Nothing named after an entry of the hostile zips appeared next to the data directory or in the working directory.
  for (const place of [tmpdir(), dirname(tmpdir()), process.cwd(), '/']) {
    expect(readdirSync(place).filter((n) => n.includes(marker) || n === 'x' || n === 'evil.txt')).toEqual([]);
  }
});

describe('not a zip', () => {
  it('a text file, an empty file, a PDF header and a truncated docx → 422 naming file', async () => {
    await expectRefused(Buffer.from('# just markdown\n'), /not a zip package/);
    await expectRefused(new Uint8Array(0), /file is required|not a zip package/);
    await expectRefused(Buffer.from('%PDF-1.7\n%âãÏÓ\n'), /not a zip package/);
    const docx = defaultTemplate();
    await expectRefused(docx.subarray(0, Math.floor(docx.length / 2)), /not a zip package|damaged/);
  });
});

describe('zip bombs', () => {
  it('one part of 64 MB of zeros in 64 KB (ratio ~1000:1) is refused from its declared sizes, before inflating', async () => {
    const size = 64 * MB;
    const body = await deflateZeros(size);
    expect(body.length).toBeLessThan(size / 500);
    const bomb = craftZip([
      ...baseEntries(),
      { name: 'word/media/zeros.bin', body, method: 8, size, crc: zerosCrc(size) },
    ]);
    await expectRefused(bomb, /compressed suspiciously well/);
  });

  it('240 parts of 1 MB of zeros (each under the per-part ratio check, 240 MB from ~250 KB) are refused as a whole', async () => {
    const bomb = craftZip([...baseEntries(), ...(await zeroParts(240, 'pad'))]);
    expect(bomb.length).toBeLessThan(400 * 1024);
    await expectRefused(bomb, /compressed suspiciously well/);
  });

  it('the same padded with 1.2 MB of random bytes (under 200:1 as a whole, 250 MB from 1.4 MB) is refused too', async () => {
    const bomb = craftZip([
      ...baseEntries(),
      entry('word/media/pad.bin', randomBytes(1_200_000), 0),
      ...(await zeroParts(240, 'pad')),
    ]);
    expect(bomb.length).toBeLessThan(2 * MB);
    await expectRefused(bomb, /compressed suspiciously well/);
  });

  it(`an overlapping bomb: ${SOAK ? 4000 : 1000} entries sharing one 1 MB body (${SOAK ? '4 GB' : '1 GB'} from a ~${SOAK ? 200 : 60} KB zip)`, async () => {
    const size = MB;
    const kernel: CraftEntry = {
      name: 'word/media/k',
      body: await deflateZeros(size),
      method: 8,
      size,
      crc: zerosCrc(size),
    };
    const bomb = craftOverlappingZip(baseEntries(), kernel, SOAK ? 4000 : 1000);
    expect(bomb.length).toBeLessThan(300 * 1024);
    await expectRefused(bomb, /parts, more than 2000|more than 256 MB|overlaps another part/);
    // Under the part count limit the overlap itself is what refuses it.
    await expectRefused(craftOverlappingZip(baseEntries(), kernel, 200), /more than 256 MB|overlaps another part/);
    await expectRefused(craftOverlappingZip(baseEntries(), kernel, 20), /overlaps another part/);
  });

  it('300 separate parts of 1 MB of zeros each (each under the ratio check) → refused by the 256 MB total', async () => {
    await expectRefused(craftZip([...baseEntries(), ...(await zeroParts(300, 'z'))]), /more than 256 MB/);
  });

  it('a part that declares 100 KB but inflates to 64 MB is stopped while inflating', async () => {
    const real = 64 * MB;
    const body = await deflateZeros(real);
    const started = Date.now();
    await expectRefused(
      craftZip([...baseEntries(), { name: 'word/media/liar.bin', body, method: 8, size: 100 * 1024, crc: 0 }]),
      /more than its declared/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('more than 2000 parts → refused from the directory alone', async () => {
    const empty = entry('e', new Uint8Array(0), 0);
    const many = Array.from({ length: 2100 }, (_, i) => ({ ...empty, name: `customXml/e${i}.xml` }));
    await expectRefused(craftZip([...baseEntries(), ...many]), /more than 2000/);
  });
});

describe('macro-enabled documents', () => {
  it('a vbaProject.bin part → 422', async () => {
    await expectRefused(craftZip([...baseEntries(), entry('word/vbaProject.bin', randomBytes(2048))]), /macro-enabled/);
  });

  it('the macroEnabled main content type (a .docm) → 422, whatever the upload is called', async () => {
    const types = docxPart('[Content_Types].xml').replace(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
      'application/vnd.ms-word.document.macroEnabled.main+xml',
    );
    expect(types).toContain('macroEnabled');
    await expectRefused(craftZip(baseEntries({ '[Content_Types].xml': types })), /macro-enabled/);
  });
});

describe('DTDs and external entities (XXE)', () => {
  const doctype = (entity: string) => `<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "${entity}">]>`;
  const withDoctype = (xml: string, entity: string) =>
    xml.replace(/^(<\?xml[^>]*\?>)?/, (decl) => `${decl}${doctype(entity)}`);

  it('an external entity in document.xml (http and file:) → 422; the entity URL is never fetched', async () => {
    const doc = docxPart('word/document.xml').replace('</w:body>', '<w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body>');
    await expectRefused(
      craftZip(baseEntries({ 'word/document.xml': withDoctype(doc, `${entityUrl}/document`) })),
      /word\/document\.xml declares a DTD/,
    );
    await expectRefused(
      craftZip(baseEntries({ 'word/document.xml': withDoctype(doc, 'file:///etc/passwd') })),
      /declares a DTD/,
    );
  });

  it('a DTD in a part Docwright does not parse (settings.xml, [Content_Types].xml) → 422', async () => {
    await expectRefused(
      craftZip(
        baseEntries({ 'word/settings.xml': withDoctype(docxPart('word/settings.xml'), `${entityUrl}/settings`) }),
      ),
      /word\/settings\.xml declares a DTD/,
    );
    await expectRefused(
      craftZip(
        baseEntries({ '[Content_Types].xml': withDoctype(docxPart('[Content_Types].xml'), `${entityUrl}/types`) }),
      ),
      /declares a DTD/,
    );
  });

  it('a billion-laughs internal entity set in styles.xml → 422', async () => {
    const laughs =
      '<!DOCTYPE w:styles [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>';
    const styles = docxPart('word/styles.xml').replace(/^(<\?xml[^>]*\?>)?/, (decl) => `${decl}${laughs}`);
    await expectRefused(craftZip(baseEntries({ 'word/styles.xml': styles })), /styles\.xml declares a DTD/);
  });

  it('a DTD in a UTF-16 part → 422', async () => {
    const xml = withDoctype(
      docxPart('word/fontTable.xml').replace('encoding="UTF-8"', 'encoding="UTF-16"'),
      `${entityUrl}/utf16`,
    );
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    await expectRefused(craftZip(baseEntries({ 'word/fontTable.xml': utf16 })), /fontTable\.xml declares a DTD/);
  });

  it('no entity URL was ever requested', () => {
    expect(entityHits).toEqual([]);
  });
});

describe('path traversal inside the zip', () => {
  for (const name of [
    '../../x',
    `../../${marker}.txt`,
    `/tmp/${marker}.txt`,
    `..\\..\\${marker}.txt`,
    `word\\..\\..\\${marker}`,
    `C:/${marker}.txt`,
    `word/../../${marker}`,
    'word/./document.xml',
    'word//x.xml',
  ]) {
    it(`an entry named ${JSON.stringify(name)} → 422 (nothing is ever written from entry names)`, async () => {
      await expectRefused(craftZip([...baseEntries(), entry(name, 'evil')]), /unsafe part path/);
      expect(existsSync(join(dir, 'templates', name))).toBe(false);
    });
  }

  it('two parts with the same name (one hiding behind the other) → 422', async () => {
    await expectRefused(craftZip([...baseEntries(), entry('word/document.xml', '<evil/>')]), /twice/);
  });
});

// Sent chunked, so no declared length gives it away: a declared one over the limit is refused before a byte of the
// body is read (test/security/payload-too-large.test.ts).
describe('a 200 MB upload', () => {
  it('→ 413 payload_too_large as soon as the 50 MB limit is crossed; the connection is closed soon after, the rest is never read', async () => {
    const before = snapshot();
    const boundary = `----dw${randomBytes(8).toString('hex')}`;
    const total = 200 * MB;
    const url = new URL(server.discovery.url);
    const socket = connect({
      host: url.hostname,
      port: Number(url.port),
      ca: readFileSync(server.discovery.cert_path ?? '', 'utf8'),
      servername: 'localhost',
    });
    await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    let answer = '';
    let sent = 0;
    let sentAtAnswer = -1;
    socket.on('data', (d: Buffer) => {
      if (sentAtAnswer < 0) sentAtAnswer = sent;
      answer += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const started = Date.now();
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.docx"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    socket.write(
      `POST /api/v1/templates HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${String(auth.authorization)}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n${head.length.toString(16)}\r\n${head}\r\n`,
    );
    const chunk = Buffer.concat([Buffer.from(`${MB.toString(16)}\r\n`), randomBytes(MB), Buffer.from('\r\n')]);
    while (sent < total && !socket.destroyed && sentAtAnswer < 0) {
      sent += chunk.length;
      if (!socket.write(chunk)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
    }
    await Promise.race([closed, new Promise((r) => setTimeout(r, 10_000))]);
    expect(socket.destroyed || socket.readableEnded, 'the server closed the connection').toBe(true);
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
      error: { code: string; message: string };
    };
    expect(body.error.code).toBe('payload_too_large');
    expect(body.error.message).toMatch(/50 MB/);
    expect(sentAtAnswer).toBeGreaterThan(50 * MB);
    expect(sentAtAnswer, 'answered long before the 200 MB were sent').toBeLessThan(100 * MB);
    console.log(`200 MB upload: 413 when ${Math.round(sentAtAnswer / MB)} MB were sent, ${Date.now() - started} ms`);
    expect(snapshot()).toEqual(before);
    expect((await call(agent, `${server.discovery.url}/api/health`)).status).toBe(200);
  });
});

describe('after all of it', () => {
  it('a real template still uploads and converts', async () => {
    const res = await upload(defaultTemplate());
    expect(res.status).toBe(201);
    expect(readdirSync(join(dir, 'templates')).sort()).toEqual(
      [`${owned.id}-v1.docx`, `${String(res.body.id)}-v1.docx`].sort(),
    );
  });
});
