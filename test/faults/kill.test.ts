// A kill -9 of the server in the middle of 50 concurrent conversions, key creations and template uploads leaves a
// readable database, and every request that was answered 2xx is there after restart, with its file; no temporary
// or orphaned file survives the restart. The server runs as `docwright serve`, a real child process, killed with
// SIGKILL while the requests are in flight: 3 times in `npm test`, 20 times in `npm run soak` (SOAK=1).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FormData, fetch, type Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultTemplate } from '../../server/convert/index.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import {
  call,
  killAllChildren,
  runCli,
  startServe,
  trustingAgent,
  type ServeProcess,
} from '../helpers/docwright-process.ts';
import { readRecords } from '../helpers/records.ts';

const CONVERSIONS = 50;
const KEY_CREATIONS = 10;
const TEMPLATE_UPLOADS = 3;
const KILL_AFTER = 20;
const CYCLES = process.env.SOAK ? 20 : 3;

const MARKDOWN = [
  '# Crash test',
  '',
  ...Array.from(
    { length: 6 },
    (_, i) =>
      `## Section ${i}\n\nParagraph ${i} with **bold**, *italic* and \`code\`.\n\n- item\n  - nested\n\n| a | b |\n|---|---|\n| ${i} | x |\n`,
  ),
].join('\n');

let dir: string;
afterAll(async () => {
  await killAllChildren();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Database {
  conversions: { conversion_id: string; file: string; size: number }[];
  api_keys: { id: string; revoked_at: string | null }[];
  templates: { id: string; file: string | null; size: number; builtin: boolean }[];
}

/** The records as they are on disk (db.json and conversions/): must parse. */
function readDatabase(): Database {
  return readRecords<Database>(dir);
}

function tempFiles(): string[] {
  return ['', 'templates', 'outputs', 'conversions'].flatMap((sub) =>
    readdirSync(join(dir, sub))
      .filter((name) => name.endsWith('.tmp'))
      .map((name) => join(sub, name)),
  );
}

describe('kill -9 in the middle of concurrent conversions', () => {
  it(
    `keeps every answered conversion, key and template across ${CYCLES} SIGKILLs`,
    async () => {
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
      const answeredTemplates = new Set<string>();
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
        const outcomes = { converted: 0, keys: 0, templates: 0, failed: 0, other: [] as number[] };

        const convertOne = async (i: number) => {
          let res;
          try {
            res = await call(agent, `${base}/api/v1/convert`, {
              method: 'POST',
              headers: auth,
              body: {
                markdown: `${MARKDOWN}\n\ncycle ${cycle} request ${i}\n`,
                template_id: BUILTIN_TEMPLATE_ID,
                mapping_id: BUILTIN_MAPPING_ID,
                filename: `c${cycle}-${i}`,
                response_format: 'json',
              },
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
          if (ok >= KILL_AFTER && outcomes.templates > 0) kill();
        };
        const createKey = async (i: number) => {
          let res;
          try {
            res = await call(agent, `${base}/api/settings/api-keys`, {
              method: 'POST',
              headers: { 'x-docwright-admin': adminToken },
              body: { name: `crash ${cycle}.${i}` },
            });
          } catch {
            outcomes.failed += 1;
            return;
          }
          if (res.status !== 201) return void outcomes.other.push(res.status);
          const body = res.json() as { id: string; key: string };
          answeredKeys.set(body.id, body.key);
          outcomes.keys += 1;
        };

        const uploadTemplate = async (i: number) => {
          const form = new FormData();
          form.append('name', `crash ${cycle}.${i}`);
          form.append('file', new Blob([new Uint8Array(defaultTemplate())]), 'crash.docx');
          let res;
          try {
            res = await fetch(`${base}/api/v1/templates`, {
              method: 'POST',
              body: form,
              headers: auth,
              dispatcher: agent,
            });
          } catch {
            outcomes.failed += 1;
            return;
          }
          const body = (await res.json().catch(() => ({}))) as { id?: string };
          if (res.status !== 201) return void outcomes.other.push(res.status);
          if (body.id) answeredTemplates.add(body.id);
          outcomes.templates += 1;
          if (ok >= KILL_AFTER) kill();
        };

        // 50 conversions with 10 key creations and 3 template uploads interleaved, all at once.
        const t0 = Date.now();
        // The uploads go first: they take longer than a conversion. The kill lands once 20 conversions and one upload are answered.
        const work: Promise<void>[] = Array.from({ length: TEMPLATE_UPLOADS }, (_, i) => uploadTemplate(i));
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
        for (const id of answeredConversions)
          expect(onDisk.has(id), `conversion ${id} in db.json after the kill`).toBe(true);
        const keysOnDisk = new Set(afterKill.api_keys.map((k) => k.id));
        for (const id of answeredKeys.keys())
          expect(keysOnDisk.has(id), `key ${id} in db.json after the kill`).toBe(true);
        const templatesOnDisk = new Set(afterKill.templates.map((t) => t.id));
        for (const id of answeredTemplates)
          expect(templatesOnDisk.has(id), `template ${id} in db.json after the kill`).toBe(true);

        // Restart on the same data directory: the dead server's lock is taken over.
        expect(readFileSync(join(dir, 'docwright.lock'), 'utf8').split('\n')[0]).toBe(String(server.pid));
        server = await startServe(['--data-dir', dir]);
        const t2 = Date.now();
        expect(readFileSync(join(dir, 'docwright.lock'), 'utf8').split('\n')[0]).toBe(String(server.pid));
        expect(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8'))).toMatchObject({
          url: server.url,
          pid: server.pid,
        });

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
              const download = await call(check, `${server.url}${String(record.json().download_url)}`, {
                headers: auth,
              });
              expect(download.status, `download ${id}`).toBe(200);
              expect(download.bytes.subarray(0, 2).toString()).toBe('PK');
              expect(download.bytes.length).toBe(records.get(id)?.size);
            }),
          );

          // Every key answered 201 is listed, and works.
          const list = await call(check, `${server.url}/api/settings/api-keys`, {
            headers: { 'x-docwright-admin': readFileSync(join(dir, 'admin.token'), 'utf8').trim() },
          });
          expect(list.status).toBe(200);
          const listed = new Set((list.json() as { id: string }[]).map((k) => k.id));
          for (const [id, secret] of answeredKeys) {
            expect(listed.has(id), `key ${id} listed after restart`).toBe(true);
            expect(
              (await call(check, `${server.url}/api/v1/templates`, { headers: { authorization: `Bearer ${secret}` } }))
                .status,
            ).toBe(200);
          }

          // No temporary files; no output file without a record, no record without its output file.
          expect(tempFiles()).toEqual([]);
          const outputs = readdirSync(join(dir, 'outputs')).sort();
          expect(outputs).toEqual(db.conversions.map((c) => c.file).sort());
          expect(readdirSync(join(dir, 'templates')).sort()).toEqual(
            db.templates.flatMap((t) => (t.file ? [t.file] : [])).sort(),
          );
          // Every template answered 201 is listed and downloads its bytes.
          for (const id of answeredTemplates) {
            const t = await call(check, `${server.url}/api/v1/templates/${id}/download`, { headers: auth });
            expect(t.status, `template ${id}`).toBe(200);
            expect(t.bytes.length).toBe(defaultTemplate().length);
          }
        } finally {
          await check.close();
        }
        console.log(
          `cycle ${cycle}: ${outcomes.converted} conversions, ${outcomes.keys} keys and ${outcomes.templates} templates answered, ${outcomes.failed} requests cut off by the kill;` +
            ` load ${t1 - t0} ms, restart ${t2 - t1} ms, checks ${Date.now() - t2} ms`,
        );
      }
      console.log(
        `${CYCLES} kill cycles in ${Date.now() - started} ms; ${answeredConversions.size} conversions, ${answeredKeys.size} keys and ${answeredTemplates.size} templates answered`,
      );
      expect(answeredKeys.size).toBeGreaterThan(0);
      expect(answeredTemplates.size).toBeGreaterThan(0);
      // The kills really landed mid-load: some requests never got an answer.
      expect(cutOff).toBeGreaterThan(0);

      server.child.kill('SIGTERM');
      await server.exited;
      expect(server.child.exitCode).toBe(0);
    },
    CYCLES * 30_000,
  );
});
