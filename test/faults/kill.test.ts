// A kill -9 of the server in the middle of 50 concurrent conversions leaves a readable database, and every
// conversion that was answered 200 is there after restart. The server runs as `docwright serve`, a real child
// process, killed with SIGKILL three times while conversions and key creations are in flight.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, killAllChildren, runCli, startServe, trustingAgent, type ServeProcess } from '../helpers/docwright-process.ts';

const CONVERSIONS = 50;
const KEY_CREATIONS = 10;
const KILL_AFTER = 20;
const CYCLES = 3;

const MARKDOWN = [
  '# Crash test',
  '',
  ...Array.from({ length: 6 }, (_, i) => `## Section ${i}\n\nParagraph ${i} with **bold**, *italic* and \`code\`.\n\n- item\n  - nested\n\n| a | b |\n|---|---|\n| ${i} | x |\n`),
].join('\n');

let dir: string;
afterAll(async () => {
  await killAllChildren();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Database {
  conversions: { conversion_id: string; file: string; size: number }[];
  api_keys: { id: string; revoked_at: string | null }[];
}

/** db.json as it is on disk: must parse. */
function readDatabase(): Database {
  return JSON.parse(readFileSync(join(dir, 'db.json'), 'utf8')) as Database;
}

function tempFiles(): string[] {
  return ['', 'templates', 'outputs'].flatMap((sub) => readdirSync(join(dir, sub)).filter((name) => name.endsWith('.tmp')).map((name) => join(sub, name)));
}

describe('kill -9 in the middle of concurrent conversions', () => {
  it(`keeps every answered conversion and key across ${CYCLES} SIGKILLs`, async () => {
    dir = mkdtempSync(join(tmpdir(), 'dw-crash-'));
    let server: ServeProcess = await startServe(['--data-dir', dir]);
    const certPath = join(dir, 'tls', 'localhost-cert.pem');

    // The API key, created with the CLI through the running server (it holds the data directory's lock).
    const created = await runCli(['keys', 'create', 't', '--data-dir', dir]);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^dw_/);
    const auth = { authorization: `Bearer ${key}` };

    const answeredConversions = new Set<string>();
    const answeredKeys = new Map<string, string>(); // id → key
    const started = Date.now();
    let cutOff = 0;

    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const agent: Agent = trustingAgent(certPath);
      const adminToken = readFileSync(join(dir, 'admin.token'), 'utf8').trim();
      const base = server.url;
      let ok = 0;
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        server.child.kill('SIGKILL');
      };
      const outcomes = { converted: 0, keys: 0, failed: 0, other: [] as number[] };

      const convertOne = async (i: number) => {
        let res;
        try {
          res = await call(agent, `${base}/api/v1/convert`, {
            method: 'POST',
            headers: auth,
            body: { markdown: `${MARKDOWN}\n\ncycle ${cycle} request ${i}\n`, template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID, filename: `c${cycle}-${i}`, response_format: 'json' },
          });
        } catch {
          outcomes.failed += 1; // the connection died with the server
          return;
        }
        if (res.status !== 200) return void outcomes.other.push(res.status);
        const record = res.json() as { conversion_id: string; status: string; filename: string };
        expect(record.status).toBe('completed');
        expect(record.filename).toBe(`c${cycle}-${i}.docx`);
        answeredConversions.add(record.conversion_id);
        outcomes.converted += 1;
        ok += 1;
        if (ok >= KILL_AFTER) kill();
      };
      const createKey = async (i: number) => {
        let res;
        try {
          res = await call(agent, `${base}/api/settings/api-keys`, { method: 'POST', headers: { 'x-docwright-admin': adminToken }, body: { name: `crash ${cycle}.${i}` } });
        } catch {
          outcomes.failed += 1;
          return;
        }
        if (res.status !== 201) return void outcomes.other.push(res.status);
        const body = res.json() as { id: string; key: string };
        answeredKeys.set(body.id, body.key);
        outcomes.keys += 1;
      };

      // 50 conversions with 10 key creations interleaved (one after every 5th conversion), all at once.
      const t0 = Date.now();
      const work: Promise<void>[] = [];
      for (let i = 0; i < CONVERSIONS; i++) {
        work.push(convertOne(i));
        if (i % (CONVERSIONS / KEY_CREATIONS) === 2) work.push(createKey(i));
      }
      const safety = setTimeout(kill, 20_000);
      await Promise.all(work);
      clearTimeout(safety);
      kill();
      await server.exited;
      await agent.close();
      expect(server.child.signalCode).toBe('SIGKILL');
      expect(outcomes.other, 'no answer other than 200/201').toEqual([]);
      expect(outcomes.converted).toBeGreaterThanOrEqual(KILL_AFTER);
      const t1 = Date.now();
      cutOff += outcomes.failed;

      // Right after the kill: the database on disk parses and already holds every answered conversion and key.
      const afterKill = readDatabase();
      const onDisk = new Set(afterKill.conversions.map((c) => c.conversion_id));
      for (const id of answeredConversions) expect(onDisk.has(id), `conversion ${id} in db.json after the kill`).toBe(true);
      const keysOnDisk = new Set(afterKill.api_keys.map((k) => k.id));
      for (const id of answeredKeys.keys()) expect(keysOnDisk.has(id), `key ${id} in db.json after the kill`).toBe(true);

      // Restart on the same data directory: the dead server's lock is taken over.
      expect(readFileSync(join(dir, 'docwright.lock'), 'utf8').trim()).toBe(String(server.pid));
      server = await startServe(['--data-dir', dir]);
      const t2 = Date.now();
      expect(readFileSync(join(dir, 'docwright.lock'), 'utf8').trim()).toBe(String(server.pid));
      expect(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8'))).toMatchObject({ url: server.url, pid: server.pid });

      const check: Agent = trustingAgent(certPath);
      try {
        // Every conversion answered 200 so far (this cycle and the earlier ones) is there, and downloads.
        const db = readDatabase();
        const records = new Map(db.conversions.map((c) => [c.conversion_id, c]));
        await Promise.all(
          [...answeredConversions].map(async (id) => {
            const record = await call(check, `${server.url}/api/v1/conversions/${id}`, { headers: auth });
            expect(record.status, `GET conversion ${id}`).toBe(200);
            expect(record.json()).toMatchObject({ conversion_id: id, status: 'completed' });
            const download = await call(check, `${server.url}${record.json().download_url}`, { headers: auth });
            expect(download.status, `download ${id}`).toBe(200);
            expect(download.bytes.subarray(0, 2).toString()).toBe('PK');
            expect(download.bytes.length).toBe(records.get(id)?.size);
          }),
        );

        // Every key answered 201 is listed, and works.
        const list = await call(check, `${server.url}/api/settings/api-keys`, { headers: { 'x-docwright-admin': readFileSync(join(dir, 'admin.token'), 'utf8').trim() } });
        expect(list.status).toBe(200);
        const listed = new Set((list.json() as { id: string }[]).map((k) => k.id));
        for (const [id, secret] of answeredKeys) {
          expect(listed.has(id), `key ${id} listed after restart`).toBe(true);
          expect((await call(check, `${server.url}/api/v1/templates`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
        }

        // No temporary files; no output file without a record, no record without its output file.
        expect(tempFiles()).toEqual([]);
        const outputs = readdirSync(join(dir, 'outputs')).sort();
        expect(outputs).toEqual(db.conversions.map((c) => c.file).sort());
        expect(readdirSync(join(dir, 'templates'))).toEqual([]);
      } finally {
        await check.close();
      }
      console.log(
        `cycle ${cycle}: ${outcomes.converted} conversions and ${outcomes.keys} keys answered, ${outcomes.failed} requests cut off by the kill;` +
          ` load ${t1 - t0} ms, restart ${t2 - t1} ms, checks ${Date.now() - t2} ms`,
      );
    }
    console.log(`${CYCLES} kill cycles in ${Date.now() - started} ms; ${answeredConversions.size} conversions and ${answeredKeys.size} keys answered`);
    expect(answeredKeys.size).toBeGreaterThan(0);
    // The kills really landed mid-load: some requests never got an answer.
    expect(cutOff).toBeGreaterThan(0);

    server.child.kill('SIGTERM');
    await server.exited;
    expect(server.child.exitCode).toBe(0);
  }, 90_000);
});
