// A team server: `docwright serve` beyond loopback, as real processes. Refused over plain HTTP and without the
// opt-in or a certificate; with the admin's certificate (from a test CA made here) it serves HTTPS on 127.0.0.1 and
// on this machine's network addresses, to clients that trust only that CA, answering only to the certificate's names
// and the --public-host ones; `docwright keys create` reaches it through the loopback address.
import { X509Certificate } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { checkServerIdentity } from '../../server/web/server-identity.ts';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeError, startServer, type ServeOptions } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, killAllChildren, runCli, startServe, type ServeProcess } from '../helpers/docwright-process.ts';

const NAME = 'docwright.test';
const dirs: string[] = [];
const agents: Agent[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dw-team-'));
  dirs.push(dir);
  return dir;
}

/** The first non-internal IPv4 address of this machine, if it has one. */
function networkAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  return undefined;
}

const other = networkAddress();
const env = (home: string): NodeJS.ProcessEnv => ({ ...process.env, DOCWRIGHT_HOME: home, DOCWRIGHT_KEYCHAIN: 'off' });

interface Pki {
  caCert: string;
  cert: string;
  key: string;
  /** Another key pair's private key: not the certificate's. */
  otherKey: string;
  /** A certificate of the same CA that expired yesterday, and its key. */
  expiredCert: string;
  expiredKey: string;
}

/** A test CA and server certificates it issued: for NAME, *.team.test, 127.0.0.1, ::1 and the network address. */
async function makePki(): Promise<Pki> {
  const ca = await generate([{ name: 'commonName', value: 'Docwright Test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true },
    ],
  });
  const altNames: { type: 2 | 7; value?: string; ip?: string }[] = [
    { type: 2, value: NAME },
    { type: 2, value: '*.team.test' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
    ...(other ? [{ type: 7 as const, ip: other }] : []),
  ];
  const serverExtensions: NonNullable<Parameters<typeof generate>[1]>['extensions'] = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
  ];
  const server = await generate([{ name: 'commonName', value: NAME }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: serverExtensions,
  });
  const stray = await generate([{ name: 'commonName', value: NAME }], { keyType: 'ec', algorithm: 'sha256' });
  const day = 86_400_000;
  const expired = await generate([{ name: 'commonName', value: NAME }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    notBeforeDate: new Date(Date.now() - 10 * day),
    notAfterDate: new Date(Date.now() - day),
    extensions: serverExtensions,
  });
  return {
    caCert: ca.cert,
    cert: server.cert,
    key: server.private,
    otherKey: stray.private,
    expiredCert: expired.cert,
    expiredKey: expired.private,
  };
}

/** An undici agent that trusts only the test CA and resolves every name to `address` (no DNS needed). */
function clientOf(caCert: string, address = '127.0.0.1'): Agent {
  const family = address.includes(':') ? 6 : 4;
  const lookup = (
    hostname: string,
    options: { all?: boolean },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    if (/\.test$/.test(hostname))
      return options.all ? callback(null, [{ address, family }]) : callback(null, address, family);
    return dnsLookup(hostname, options as never, callback as never);
  };
  // Node's own check fails every IPv6 address on the Node Docwright runs on (nodejs/node#64144): the product's.
  const agent = new Agent({ connect: { ca: caCert, lookup: lookup, checkServerIdentity } });
  agents.push(agent);
  return agent;
}

/** A GET with a Host header of our choosing, over TLS checked against the CA for the URL's address. */
function getWithHost(
  url: string,
  caCert: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const address = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    // Node would check the certificate against the Host header's name; this client connects to the address.
    const req = httpsRequest(
      url,
      { ca: caCert, headers, agent: false, checkServerIdentity: (_host, cert) => checkServerIdentity(address, cert) },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let pki: Pki;
let files: { cert: string; key: string; otherKey: string; expiredCert: string; expiredKey: string; ca: string };

beforeAll(async () => {
  pki = await makePki();
  const dir = tempDir();
  files = {
    cert: join(dir, 'server.pem'),
    key: join(dir, 'server-key.pem'),
    otherKey: join(dir, 'other-key.pem'),
    expiredCert: join(dir, 'expired.pem'),
    expiredKey: join(dir, 'expired-key.pem'),
    ca: join(dir, 'ca.pem'),
  };
  // The server's certificate followed by its CA, as admins usually get a chain.
  writeFileSync(files.cert, `${pki.cert.trim()}\n${pki.caCert.trim()}\n`);
  writeFileSync(files.key, pki.key, { mode: 0o600 });
  writeFileSync(files.otherKey, pki.otherKey, { mode: 0o600 });
  writeFileSync(files.expiredCert, pki.expiredCert);
  writeFileSync(files.expiredKey, pki.expiredKey, { mode: 0o600 });
  writeFileSync(files.ca, pki.caCert);
  chmodSync(files.key, 0o600);
});

afterAll(async () => {
  await killAllChildren();
  await Promise.all(agents.map((a) => a.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('docwright serve beyond loopback: refusals', () => {
  /** startServer in this process: every refusal comes before the data directory is touched. */
  const refusal = async (options: Omit<ServeOptions, 'dataDir'>): Promise<string> => {
    const home = tempDir();
    const error: unknown = await startServer({ dataDir: home, port: 0, ...options }).then(
      async (server) => {
        await server.close();
        return new Error('it started');
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServeError);
    expect(existsSync(join(home, 'docwright.lock'))).toBe(false);
    return (error as Error).message;
  };

  it('refuses 0.0.0.0 over plain HTTP from the command line, saying what to do, and starts nothing', async () => {
    const home = tempDir();
    const result = await runCli(['serve', '--port', '0', '--host', '0.0.0.0', '--http', '--allow-remote'], {
      env: env(home),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('Docwright is running');
    expect(result.stderr).toMatch(
      /^docwright: Refusing to listen on 0\.0\.0\.0 over plain HTTP: --http is only for this computer \(127\.0\.0\.1, localhost, ::1\)/,
    );
    expect(result.stderr).toContain('docwright serve --host 0.0.0.0 --allow-remote --cert CERT.pem --key KEY.pem');
    expect(existsSync(join(home, 'server.json'))).toBe(false);
    expect(await refusal({ host: '::', http: true, allowRemote: true })).toMatch(
      /^Refusing to listen on :: over plain HTTP/,
    );
    expect(await refusal({ host: '192.0.2.7', http: true })).toMatch(
      /^Refusing to listen on 192\.0\.2\.7 over plain HTTP/,
    );
  });

  it('refuses a network address without the explicit opt-in (even with a certificate), and without a certificate after it', async () => {
    const cert = { tlsCert: files.cert, tlsKey: files.key };
    expect(await refusal({ host: '0.0.0.0', ...cert })).toMatch(
      /^Refusing to listen on 0\.0\.0\.0: that makes Docwright reachable from other computers.*opt in with --allow-remote/,
    );
    expect(await refusal({ host: '::', ...cert })).toMatch(/^Refusing to listen on ::: that makes Docwright reachable/);
    expect(await refusal({ host: '0.0.0.0', allowRemote: true })).toMatch(
      /^Listening on 0\.0\.0\.0 needs your certificate .*--cert CERT\.pem --key KEY\.pem/,
    );
    expect(await refusal({ host: 'example.com', allowRemote: true, ...cert })).toMatch(
      /^Refusing to listen on example\.com: the address to listen on \(--host, or the host policy\) must be an IP address/,
    );
    expect(await refusal({ host: '0.0.0.0', allowRemote: true, tlsCert: files.cert })).toBe(
      '--cert and --key go together: give both PEM files.',
    );
    expect(await refusal({ allowRemote: true, ...cert, publicHosts: ['evil/host'] })).toBe(
      '--public-host evil/host is not a host name or IP address.',
    );
  });

  it("refuses a missing file, a key that is not the certificate's, an expired certificate, swapped files, each naming the file", async () => {
    const home = tempDir();
    const mismatched = await runCli(
      ['serve', '--port', '0', '--host', '0.0.0.0', '--allow-remote', '--cert', files.cert, '--key', files.otherKey],
      { env: env(home) },
    );
    expect(mismatched.code).toBe(1);
    expect(mismatched.stderr).toBe(
      `docwright: The key ${files.otherKey} (--key) does not belong to the certificate ${files.cert} (--cert): their public keys differ.\n`,
    );
    expect(existsSync(join(home, 'docwright.lock'))).toBe(false);
    const remote = { host: '0.0.0.0', allowRemote: true };
    expect(await refusal({ ...remote, tlsCert: join(home, 'missing.pem'), tlsKey: files.key })).toBe(
      `Cannot read the certificate (--cert) ${join(home, 'missing.pem')}: no such file.`,
    );
    expect(await refusal({ ...remote, tlsCert: files.cert, tlsKey: home })).toBe(
      `Cannot read the key (--key) ${home}: it is a directory.`,
    );
    expect(await refusal({ ...remote, tlsCert: files.expiredCert, tlsKey: files.expiredKey })).toMatch(
      new RegExp(
        `^The certificate ${files.expiredCert} \\(--cert\\) expired on \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; renew it and restart\\.$`,
      ),
    );
    const swapped = await refusal({ ...remote, tlsCert: files.key, tlsKey: files.cert });
    expect(swapped).toContain(`The certificate ${files.key} (--cert) holds no PEM certificate`);
    expect(swapped).toContain('--cert and --key may be swapped');
  });
});

describe('docwright serve --host 0.0.0.0 --allow-remote with the admin’s certificate', () => {
  let home: string;
  let server: ServeProcess;
  let port: number;
  let ca: Agent;
  let fingerprint: string;

  beforeAll(async () => {
    home = tempDir();
    server = await startServe(
      [
        '--host',
        '0.0.0.0',
        '--allow-remote',
        '--cert',
        files.cert,
        '--key',
        files.key,
        '--public-host',
        'docs.team.test',
      ],
      { env: env(home) },
    );
    port = Number(new URL(server.url).port);
    ca = clientOf(pki.caCert);
    fingerprint = new X509Certificate(pki.cert).fingerprint256;
  });

  it('prints a warning that it is reachable from the network, from which addresses and names', () => {
    expect(server.url).toBe(`https://127.0.0.1:${port}`);
    const warning =
      server
        .stderr()
        .split('\n')
        .find((line) => line.includes('reachable from the network')) ?? '';
    expect(warning).toMatch(
      new RegExp(`^warning: Docwright is reachable from the network: listening on 0\\.0\\.0\\.0 port ${port}`),
    );
    if (other) expect(warning).toContain(`(addresses: ${other}`);
    expect(warning).toContain(`https://${NAME}:${port}`);
    expect(warning).toContain(`https://docs.team.test:${port}`);
    expect(warning).toContain('firewall');
    // The wildcard name is not taken as a Host by itself.
    expect(server.stderr()).toContain('wildcard names (*.team.test) are not accepted as Host headers by themselves');
  });

  it('serves HTTPS with the admin’s certificate to clients that trust only the admin’s CA, by name and on 127.0.0.1', async () => {
    const byName = await call(ca, `https://${NAME}:${port}/api/health`);
    expect(byName.status).toBe(200);
    expect(byName.json()).toEqual({ status: 'ok', service: 'docwright' });
    expect((await call(ca, `https://127.0.0.1:${port}/api/health`)).status).toBe(200);
    expect((await call(ca, `https://docs.team.test:${port}/api/health`)).status).toBe(200);
    const peer = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest(`https://127.0.0.1:${port}/api/health`, { ca: pki.caCert, agent: false }, (res) => {
        resolve(
          (res.socket as unknown as { getPeerCertificate(): { fingerprint256: string } }).getPeerCertificate()
            .fingerprint256,
        );
        res.resume();
      });
      req.on('error', reject);
      req.end();
    });
    expect(peer).toBe(fingerprint);
    // A client that trusts only Docwright's generated certificates does not get through: it is the admin's.
    await expect(
      call(
        new Agent({ connect: { ca: readFileSync(files.expiredCert, 'utf8') } }),
        `https://127.0.0.1:${port}/api/health`,
      ),
    ).rejects.toThrow();
  });

  it('answers on this machine’s network address too (or says it has none)', async () => {
    if (!other) {
      expect(server.stderr()).toContain('this machine has no network address right now');
      return;
    }
    const res = await call(ca, `https://${other}:${port}/api/health`);
    expect(res.status).toBe(200);
    expect(
      (await getWithHost(`https://${other}:${port}/api/health`, pki.caCert, { host: `${other}:${port}` })).status,
    ).toBe(200);
  });

  it('accepts the certificate’s names and --public-host as Host, refuses any other Host and foreign Origins', async () => {
    const url = `https://127.0.0.1:${port}/api/health`;
    expect((await getWithHost(url, pki.caCert, { host: `${NAME}:${port}` })).status).toBe(200);
    expect((await getWithHost(url, pki.caCert, { host: `docs.team.test:${port}` })).status).toBe(200);
    for (const host of [
      `evil.example:${port}`,
      `other.team.test:${port}`,
      `${NAME}.evil.example:${port}`,
      `${NAME}:1`,
    ]) {
      const refused = await getWithHost(url, pki.caCert, { host });
      expect(refused.status, host).toBe(403);
      expect(JSON.parse(refused.body).error.code).toBe('forbidden');
      expect(JSON.parse(refused.body).error.message).toMatch(/DNS rebinding/);
    }
    expect(
      (await getWithHost(url, pki.caCert, { host: `${NAME}:${port}`, origin: `https://${NAME}:${port}` })).status,
    ).toBe(200);
    const foreign = await getWithHost(url, pki.caCert, {
      host: `${NAME}:${port}`,
      origin: `https://evil.example:${port}`,
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body).error.message).toMatch(/Cross-origin/);
  });

  it('reports the certificate’s fingerprint in the discovery file, status and the settings page', async () => {
    const discovery = JSON.parse(readFileSync(join(home, 'server.json'), 'utf8'));
    expect(discovery).toMatchObject({
      url: server.url,
      host: '0.0.0.0',
      https: true,
      fingerprint,
      cert_path: files.cert,
    });
    const status = await runCli(['status', '--json'], { env: env(home) });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      running: true,
      url: server.url,
      fingerprint,
      cert_path: files.cert,
    });
    const adminToken = readFileSync(join(home, 'admin.token'), 'utf8').trim();
    const settings = await call(ca, `https://${NAME}:${port}/api/settings`, {
      headers: { 'x-docwright-admin': adminToken },
    });
    expect(settings.status).toBe(200);
    expect(settings.json().server).toMatchObject({ url: server.url, https: true, fingerprint, cert_path: files.cert });
  });

  it('creates a key with `docwright keys create` on the host, which then works from the network name', async () => {
    const created = await runCli(['keys', 'create', 'team laptop'], { env: env(home) });
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^dw_/);
    const auth = { authorization: `Bearer ${key}` };
    const target = other ? clientOf(pki.caCert, other) : ca;
    const converted = await call(target, `https://${NAME}:${port}/api/v1/convert`, {
      method: 'POST',
      headers: auth,
      body: {
        markdown: '# Team\n\nHello from the network.',
        template_id: BUILTIN_TEMPLATE_ID,
        mapping_id: BUILTIN_MAPPING_ID,
      },
    });
    expect(converted.status).toBe(200);
    expect(converted.bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    expect((await call(ca, `https://${NAME}:${port}/api/v1/templates`)).status).toBe(401);
    const adminToken = readFileSync(join(home, 'admin.token'), 'utf8').trim();
    const list = await call(ca, `https://${NAME}:${port}/api/settings/api-keys`, {
      headers: { 'x-docwright-admin': adminToken },
    });
    expect(list.json().map((k: { name: string }) => k.name)).toEqual(['team laptop']);
  });
});

describe('the opt-in and the address from the policy', () => {
  const withPolicy = async <T>(policy: unknown, run: () => Promise<T>): Promise<T> => {
    const file = join(tempDir(), 'policy.json');
    writeFileSync(file, JSON.stringify(policy));
    const before = process.env.DOCWRIGHT_POLICY;
    process.env.DOCWRIGHT_POLICY = file;
    try {
      return await run();
    } finally {
      if (before === undefined) delete process.env.DOCWRIGHT_POLICY;
      else process.env.DOCWRIGHT_POLICY = before;
    }
  };

  it('a policy with host 0.0.0.0 and allow_remote true is the opt-in; the certificate still comes from the admin', async () => {
    const policy = {
      settings: { host: { value: '0.0.0.0', locked: true }, allow_remote: { value: true, locked: true } },
    };
    const server = await withPolicy(policy, () =>
      startServer({ dataDir: tempDir(), port: 0, tlsCert: files.cert, tlsKey: files.key }),
    );
    try {
      expect(server.discovery).toMatchObject({ host: '0.0.0.0', url: `https://127.0.0.1:${server.discovery.port}` });
      expect(server.warnings.join('\n')).toContain('reachable from the network: listening on 0.0.0.0');
      expect((await call(clientOf(pki.caCert), `https://${NAME}:${server.discovery.port}/api/health`)).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
    const noCert = await withPolicy(policy, () =>
      startServer({ dataDir: tempDir(), port: 0 }).then(
        () => 'started',
        (e: unknown) => (e as Error).message,
      ),
    );
    expect(noCert).toMatch(/^Listening on 0\.0\.0\.0 needs your certificate/);
    const noOptIn = await withPolicy({ settings: { host: { value: '0.0.0.0', locked: true } } }, () =>
      startServer({ dataDir: tempDir(), port: 0, tlsCert: files.cert, tlsKey: files.key }).then(
        () => 'started',
        (e: unknown) => (e as Error).message,
      ),
    );
    expect(noOptIn).toMatch(
      /^Refusing to listen on 0\.0\.0\.0: .*opt in with --allow-remote \(or the allow_remote policy\)/,
    );
  });
});

describe('a team server on one address of the machine', () => {
  it('listens there only, gives that address to the CLI, and accepts it as Host', async () => {
    const address = other ?? '127.0.0.2';
    const server = await startServer({
      dataDir: tempDir(),
      port: 0,
      host: address,
      allowRemote: true,
      tlsCert: files.cert,
      tlsKey: files.key,
    });
    try {
      const port = server.discovery.port;
      expect(server.discovery.url).toBe(`https://${address}:${port}`);
      const bound = server.app.server.address();
      expect(typeof bound === 'object' && bound?.address).toBe(address);
      expect((await call(clientOf(pki.caCert, address), `https://${NAME}:${port}/api/health`)).status).toBe(200);
      if (other) {
        expect(
          (await getWithHost(`https://${address}:${port}/api/health`, pki.caCert, { host: `${address}:${port}` }))
            .status,
        ).toBe(200);
        // Not on loopback: only the address it was given.
        await expect(call(clientOf(pki.caCert), `https://127.0.0.1:${port}/api/health`)).rejects.toThrow();
        expect(server.warnings.join('\n')).toContain(`listening on ${address} port ${port} (addresses: ${address})`);
      }
    } finally {
      await server.close();
    }
  });
});

describe('a team server on :: (IPv6, every interface)', () => {
  it('serves the admin’s certificate on [::1], which its discovery file and settings page give', async () => {
    const server = await startServer({
      dataDir: tempDir(),
      port: 0,
      host: '::',
      allowRemote: true,
      tlsCert: files.cert,
      tlsKey: files.key,
    });
    try {
      const port = server.discovery.port;
      expect(server.discovery.url).toBe(`https://[::1]:${port}`);
      expect(server.warnings.join('\n')).toMatch(/reachable from the network: listening on \[::\] port \d+/);
      expect((await call(clientOf(pki.caCert), `https://[::1]:${port}/api/health`)).status).toBe(200);
      expect((await call(clientOf(pki.caCert, '::1'), `https://${NAME}:${port}/api/health`)).status).toBe(200);
      const settings = await call(clientOf(pki.caCert), `https://[::1]:${port}/api/settings`, {
        headers: { 'x-docwright-admin': server.adminToken },
      });
      expect(settings.json().server).toMatchObject({
        url: server.discovery.url,
        fingerprint: new X509Certificate(pki.cert).fingerprint256,
      });
    } finally {
      await server.close();
    }
  });
});
