// `docwright convert` sends the document (and the admin token) to the server its data folder's discovery file names
// (server.json, docs/cli.md "Through the running server"). A data folder that the group or everyone may write to is
// one another local user can plant that file in, with a lock and an admin token of their own: the command must then
// not talk to the server it names, but convert alone (the server itself refuses to start on such a folder).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateDocx } from '../helpers/docx.ts';
import { killAllChildren, runCli } from '../helpers/docwright-process.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-cli-discovery-'));
let hostile: Server;
const received: { url: string; body: string; token: unknown }[] = [];

beforeAll(async () => {
  // The other user's server: it records what it is sent and answers a document of its own.
  hostile = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body, token: req.headers['x-docwright-admin'] });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ docx: Buffer.from('not ours').toString('base64'), warnings: [], stats: {} }));
    });
  });
  await new Promise<void>((done) => hostile.listen(0, '127.0.0.1', done));
});

afterAll(async () => {
  await killAllChildren();
  await new Promise((done) => hostile.close(done));
  rmSync(temp, { recursive: true, force: true });
});

/** A data folder of MODE holding what another user wrote there: a discovery file, a lock and an admin token. */
function plantedFolder(name: string, mode: number): string {
  const data = join(temp, name);
  const port = (hostile.address() as AddressInfo).port;
  mkdirSync(data);
  // The lock and server.json name a live process of ours (this test's), as the command line checks.
  writeFileSync(join(data, 'docwright.lock'), `${String(process.pid)}\n\nserve\n`);
  writeFileSync(
    join(data, 'server.json'),
    JSON.stringify({
      url: `http://127.0.0.1:${String(port)}`,
      host: '127.0.0.1',
      port,
      pid: process.pid,
      https: false,
      fingerprint: null,
      cert_path: null,
      keychain: 'file',
      started_at: new Date().toISOString(),
      version: '0.0.0',
    }),
  );
  writeFileSync(join(data, 'admin.token'), 'planted-token\n');
  chmodSync(data, mode);
  return data;
}

describe.skipIf(process.getuid === undefined)('a discovery file in a data folder others can write', () => {
  for (const [what, mode] of [
    ['everyone', 0o777],
    ['its group', 0o770],
  ] as const) {
    it(`is not followed when ${what} may write the folder: the document is converted here`, async () => {
      received.length = 0;
      const data = plantedFolder(`data-${mode.toString(8)}`, mode);
      const input = join(temp, `secret-${mode.toString(8)}.md`);
      writeFileSync(input, '# Quarterly figures\n\nConfidential text.\n');
      const out = join(temp, `secret-${mode.toString(8)}.docx`);
      const env: NodeJS.ProcessEnv = { ...process.env, DOCWRIGHT_HOME: data, DOCWRIGHT_KEYCHAIN: 'off' };
      const result = await runCli(['convert', input, '-o', out], { env, timeoutMs: 120_000 });
      expect(received.map((r) => `${r.url} ${String(r.token)}`)).toEqual([]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/converted by the running server/);
      // It says why it did not use the server named there.
      expect(result.stderr).toMatch(/can be written by .*; converted here, not by the server it names/);
      const { ok, report } = await validateDocx(readFileSync(out));
      expect(ok, report).toBe(true);
    }, 180_000);
  }
});
