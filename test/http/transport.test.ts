// The transport as it runs: startServer on a real port with its generated certificate, spoken to over real HTTPS
// (undici trusting exactly that certificate, and curl --cacert), plus the refusals around it: an untrusted
// certificate, a non-loopback host, a second server on the same data directory.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeError, startServer, type RunningServer } from '../../server/serve.ts';
import { DataDirLockedError } from '../../server/store/lock.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, killAllChildren, runCli, startServe, trustingAgent } from '../helpers/docwright-process.ts';

const run = promisify(execFile);
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const dirs: string[] = [];
const servers: RunningServer[] = [];
let dir: string;
let server: RunningServer;
let agent: Agent;
let certPath: string;
let pem: string;
let apiKey: string;

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dw-transport-'));
  dirs.push(d);
  return d;
}

const url = (path: string) => `${server.discovery.url}${path}`;
const bearer = () => ({ authorization: `Bearer ${apiKey}` });

/** The HTTPS server still answers, with and without a key. */
async function expectStillUp(): Promise<void> {
  const health = await call(agent, url('/api/health'));
  expect(health.status).toBe(200);
  expect(health.json()).toEqual({ status: 'ok', service: 'docwright' });
  if (apiKey) expect((await call(agent, url('/api/v1/templates'), { headers: bearer() })).status).toBe(200);
}

beforeAll(async () => {
  dir = tempDir();
  server = await startServer({ dataDir: dir, port: 0 });
  servers.push(server);
  certPath = server.discovery.cert_path ?? '';
  pem = readFileSync(certPath, 'utf8');
  agent = trustingAgent(certPath);
});

afterAll(async () => {
  await killAllChildren();
  await agent?.close();
  for (const s of servers) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('HTTPS on a real port, trusting exactly the generated certificate', () => {
  it('listens on 127.0.0.1 with https and a real port', () => {
    expect(server.discovery.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.discovery.https).toBe(true);
    const address = server.app.server.address();
    expect(typeof address === 'object' && address?.address).toBe('127.0.0.1');
    expect(server.discovery.port).toBe(typeof address === 'object' && address ? address.port : NaN);
    expect(server.discovery.port).toBeGreaterThan(0);
  });

  it('creates an API key through the CLI admin path (x-docwright-admin)', async () => {
    const res = await call(agent, url('/api/settings/api-keys'), {
      method: 'POST',
      headers: { 'x-docwright-admin': server.adminToken },
      body: { name: 'transport' },
    });
    expect(res.status, res.bytes.toString()).toBe(201);
    const created = res.json();
    expect(created.key).toMatch(/^dw_/);
    expect(created.name).toBe('transport');
    expect(created.key.startsWith(created.key_prefix)).toBe(true);
    apiKey = created.key;
    // A wrong admin token is not the CLI.
    const wrong = await call(agent, url('/api/settings/api-keys'), {
      method: 'POST',
      headers: { 'x-docwright-admin': 'nope' },
      body: { name: 'x' },
    });
    expect(wrong.status).toBe(401);
  });

  it('lists the templates with the key', async () => {
    const res = await call(agent, url('/api/v1/templates'), { headers: bearer() });
    expect(res.status).toBe(200);
    expect(res.json().map((t: { id: string }) => t.id)).toContain(BUILTIN_TEMPLATE_ID);
  });

  it('converts (binary), then fetches the record and downloads the same bytes', async () => {
    const res = await call(agent, url('/api/v1/convert'), {
      method: 'POST',
      headers: bearer(),
      body: {
        markdown: '# Over HTTPS\n\nHello **there**.\n',
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: BUILTIN_MAPPING_ID,
        filename: 'transport',
      },
    });
    expect(res.status, res.bytes.toString()).toBe(200);
    expect(res.headers['content-type']).toBe(DOCX);
    expect(String(res.headers['content-disposition'])).toContain('filename="transport.docx"');
    const id = String(res.headers['x-conversion-id']);
    expect(id).toMatch(UUID);
    expect(res.headers['x-warnings']).toBeUndefined();
    expect(res.bytes.subarray(0, 2).toString()).toBe('PK');

    const record = await call(agent, url(`/api/v1/conversions/${id}`), { headers: bearer() });
    expect(record.status).toBe(200);
    expect(record.json()).toMatchObject({
      conversion_id: id,
      status: 'completed',
      filename: 'transport.docx',
      download_url: `/api/v1/conversions/${id}/download`,
    });

    const download = await call(agent, url(record.json().download_url), { headers: bearer() });
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe(DOCX);
    expect(Buffer.compare(download.bytes, res.bytes)).toBe(0);
  });

  it('works with curl --cacert <cert>', async () => {
    const out = join(tempDir(), 'curl.docx');
    const { stdout } = await run('curl', [
      '-sS',
      '--cacert',
      certPath,
      '-H',
      `Authorization: Bearer ${apiKey}`,
      '-H',
      'Content-Type: application/json',
      '--data-binary',
      JSON.stringify({ markdown: '# curl\n', template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID }),
      '-o',
      out,
      '-D',
      '-',
      '-w',
      'status=%{http_code} verify=%{ssl_verify_result}\n',
      url('/api/v1/convert'),
    ]);
    expect(stdout).toContain('status=200 verify=0');
    expect(stdout.toLowerCase()).toContain(`content-type: ${DOCX}`);
    const id = /x-conversion-id: (\S+)/i.exec(stdout)?.[1];
    expect(id).toMatch(UUID);
    const bytes = readFileSync(out);
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    const download = await call(agent, url(`/api/v1/conversions/${String(id)}/download`), { headers: bearer() });
    expect(Buffer.compare(download.bytes, bytes)).toBe(0);
  });

  it('fails TLS verification for a client that does not trust the certificate', async () => {
    // undici with the default (system) trust store.
    const error = await call(undefined, url('/api/health')).then(
      () => undefined,
      (e: unknown) => e as NodeJS.ErrnoException,
    );
    expect(error, 'the request must not succeed').toBeDefined();
    expect(String(error?.code ?? (error?.cause as NodeJS.ErrnoException | undefined)?.code)).toMatch(
      /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/,
    );
    // curl without --cacert: exit 60, "SSL certificate problem".
    const curl = await run('curl', ['-sS', url('/api/health')]).then(
      () => ({ code: 0, stderr: '' }),
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(curl.code).toBe(60);
    expect(curl.stderr).toMatch(/certificate/i);
    await expectStillUp();
  });

  it('has a certificate for localhost, 127.0.0.1 and ::1 whose fingerprint the discovery file gives', () => {
    const x509 = new X509Certificate(pem);
    const sans = (x509.subjectAltName ?? '').split(/,\s*/);
    expect(sans).toContain('DNS:localhost');
    expect(sans).toContain('IP Address:127.0.0.1');
    expect(sans.some((s) => s === 'IP Address:::1' || s === 'IP Address:0:0:0:0:0:0:0:1')).toBe(true);
    expect(x509.fingerprint256).toBe(server.discovery.fingerprint);
    expect(x509.ca).toBe(false);
    expect(Date.parse(x509.validTo)).toBeGreaterThan(Date.now() + 365 * 86_400_000);
  });

  it('writes a discovery file with url, port, pid and fingerprint, and no key or token', async () => {
    const text = readFileSync(join(dir, 'server.json'), 'utf8');
    const discovery = JSON.parse(text);
    expect(discovery).toMatchObject({
      url: server.discovery.url,
      port: server.discovery.port,
      pid: process.pid,
      fingerprint: new X509Certificate(pem).fingerprint256,
      https: true,
      cert_path: certPath,
    });
    for (const field of Object.keys(discovery))
      expect(field).not.toMatch(/token|secret|password|^key$|api_?key|session/i);
    expect(text).not.toContain(server.adminToken);
    const uiToken = new URL(server.uiLink).searchParams.get('token') ?? '';
    expect(uiToken.length).toBeGreaterThan(20);
    expect(text).not.toContain(uiToken);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain('dw_');
    expect(text).not.toContain('PRIVATE KEY');
    // The admin token lives in its own file, readable only by the user.
    expect(readFileSync(join(dir, 'admin.token'), 'utf8').trim()).toBe(server.adminToken);
    if (process.platform !== 'win32') expect(statSync(join(dir, 'admin.token')).mode & 0o077).toBe(0);
  });

  it('serves plain http on loopback with http: true', async () => {
    const plain = await startServer({ dataDir: tempDir(), port: 0, http: true });
    servers.push(plain);
    expect(plain.discovery.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(plain.discovery).toMatchObject({ https: false, fingerprint: null, cert_path: null });
    const address = plain.app.server.address();
    expect(typeof address === 'object' && address?.address).toBe('127.0.0.1');
    const health = await call(undefined, `${plain.discovery.url}/api/health`);
    expect(health.status).toBe(200);
    const created = await call(undefined, `${plain.discovery.url}/api/settings/api-keys`, {
      method: 'POST',
      headers: { 'x-docwright-admin': plain.adminToken },
      body: { name: 'plain' },
    });
    expect(created.status).toBe(201);
    const templates = await call(undefined, `${plain.discovery.url}/api/v1/templates`, {
      headers: { authorization: `Bearer ${String(created.json().key)}` },
    });
    expect(templates.status).toBe(200);
    // TLS against the plain port fails: it really is plain HTTP.
    await expect(call(agent, plain.discovery.url.replace('http:', 'https:') + '/api/health')).rejects.toThrow();
    await expectStillUp();
  });

  it("refuses host '0.0.0.0' with a clear error, before touching the data directory", async () => {
    const attempt = startServer({ dataDir: dir, port: 0, host: '0.0.0.0' });
    await expect(attempt).rejects.toBeInstanceOf(ServeError);
    await expect(attempt).rejects.toThrow(/Refusing to listen on 0\.0\.0\.0.*127\.0\.0\.1/);
    expect(readFileSync(join(dir, 'docwright.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    await expectStillUp();
  });

  it('refuses a second server on the same data directory with a lock error naming the pid, in-process', async () => {
    const attempt = startServer({ dataDir: dir, port: 0 });
    await expect(attempt).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(attempt).rejects.toThrow(`process ${process.pid}`);
    // Nothing of the first server's was touched.
    expect(readFileSync(join(dir, 'docwright.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    expect(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')).url).toBe(server.discovery.url);
    expect(readFileSync(join(dir, 'admin.token'), 'utf8').trim()).toBe(server.adminToken);
    await expectStillUp();
  });

  it('refuses a second server on the same data directory from another process (docwright serve)', async () => {
    const result = await runCli(['serve', '--port', '0', '--data-dir', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('Docwright is running');
    expect(result.stderr).toContain(`process ${process.pid}`);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    await expectStillUp();
    // The CLI still finds and uses the first server.
    const status = await runCli(['status', '--json', '--data-dir', dir]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, url: server.discovery.url, pid: process.pid });
  });

  it('refuses a non-loopback --host from the command line too', async () => {
    const result = await runCli(['serve', '--port', '0', '--host', '0.0.0.0', '--data-dir', tempDir()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^docwright: Refusing to listen on 0\.0\.0\.0/);
    await expectStillUp();
  });

  it('gives a server in another data directory its own certificate; SIGTERM removes its discovery file, token and lock', async () => {
    const other = tempDir();
    const child = await startServe(['--data-dir', other]);
    const discovery = JSON.parse(readFileSync(join(other, 'server.json'), 'utf8'));
    expect(discovery).toMatchObject({ url: child.url, pid: child.pid, https: true });
    const childAgent = trustingAgent(discovery.cert_path);
    try {
      expect((await call(childAgent, `${child.url}/api/health`)).status).toBe(200);
      // Trusting our certificate is not enough there.
      await expect(call(agent, `${child.url}/api/health`)).rejects.toThrow();
      expect(discovery.fingerprint).not.toBe(server.discovery.fingerprint);
    } finally {
      await childAgent.close();
      child.child.kill('SIGTERM');
      await child.exited;
    }
    expect(child.child.exitCode).toBe(0);
    for (const name of ['server.json', 'admin.token', 'docwright.lock'])
      expect(() => statSync(join(other, name)), name).toThrow();
    await expectStillUp();
  });

  it('keeps the certificate and the keys across a restart on the same data directory', async () => {
    const before = server.discovery;
    const oldToken = server.adminToken;
    await server.close();
    for (const name of ['server.json', 'admin.token', 'docwright.lock'])
      expect(() => statSync(join(dir, name)), name).toThrow();
    server = await startServer({ dataDir: dir, port: 0 });
    servers.push(server);
    expect(server.discovery.fingerprint).toBe(before.fingerprint);
    expect(server.discovery.cert_path).toBe(before.cert_path);
    await agent.close();
    agent = trustingAgent(certPath);
    // A new admin token each launch; the old one no longer opens the settings area.
    expect(server.adminToken).not.toBe(oldToken);
    const stale = await call(agent, url('/api/settings/api-keys'), { headers: { 'x-docwright-admin': oldToken } });
    expect(stale.status).toBe(401);
    // The key created before the restart still works (the secret is kept in the keychain).
    await expectStillUp();
  });
});
