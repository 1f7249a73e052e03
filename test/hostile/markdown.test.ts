// Pathological markdown against the real HTTPS server (startServer): each document ends within the conversion time
// limit with a valid .docx or a clean 422 `document_too_complex` / 413 `payload_too_large` (or, on a machine so
// loaded that the conversion could not use its CPU time within the clock's cap, 503 `server_busy`), refused ones
// are not counted against the quota, and the server keeps answering and converting. The short run (npm test) uses a 2 s
// limit; `npm run soak` uses the default limit (30 s, longer than the server's 30 s connection-inactivity timeout,
// so it also proves a request waiting for its conversion is not cut off) and larger inputs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallCapMs } from '../../server/convert-pool/pool.ts';
import { startServer, type RunningServer } from '../../server/serve.ts';
import { BUILTIN_MAPPING_ID, BUILTIN_TEMPLATE_ID } from '../../server/store/store.ts';
import { call, trustingAgent, type HttpResult } from '../helpers/docwright-process.ts';
import { validateDocx } from '../helpers/docx.ts';

const SOAK = Boolean(process.env.SOAK);
const LIMIT_MS = SOAK ? 30_000 : 2_000;
/**
 * Time the answer may take beyond the clock's cap of the limit (the limit counts CPU time; a conversion kept from
 * the cores runs by the clock up to wallCapMs): replacing a worker, reading and writing a large body.
 */
const SLACK_MS = SOAK ? 30_000 : 15_000;
const MB = 1_000_000;
const repeat = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** The inputs, by what they stress; `scale` shrinks them in the short run where that keeps the point. */
const scale = SOAK ? 1 : 0.3;
const ALL_CASES: { name: string; markdown: () => string; soakOnly?: boolean }[] = [
  { name: '100,000 nested brackets', markdown: () => `${'['.repeat(100_000)}x` },
  { name: '10,000 nested blockquotes', markdown: () => `${'> '.repeat(10_000)}deep`, soakOnly: true },
  { name: '10,000 nested `- ` items on one line', markdown: () => `${'- '.repeat(10_000)}x` },
  { name: '10,000 nested `* ` items on one line', markdown: () => `${'* '.repeat(10_000)}x`, soakOnly: true },
  {
    name: '1 MB single line of prose',
    markdown: () => repeat('Lorem ipsum dolor sit amet, **consectetur** adipiscing _elit_, sed `do` eiusmod. ', MB),
  },
  { name: 'dense emphasis in one paragraph (1 MB × scale)', markdown: () => repeat('*a **b** _c_ __d__ ', MB * scale) },
  { name: 'unmatched emphasis closers (100 KB)', markdown: () => repeat('a* ', 100_000), soakOnly: true },
  { name: 'emphasis between letters (100 KB)', markdown: () => repeat('a*b', 100_000), soakOnly: true },
  { name: 'link labels in one paragraph (1 MB × scale)', markdown: () => repeat('[a] ', MB * scale) },
  {
    name: 'code spans of growing length',
    markdown: () => Array.from({ length: Math.round(1_400 * scale) }, (_, i) => `${'`'.repeat(i + 1)}a`).join(' '),
    soakOnly: true,
  },
  {
    name: 'indented nested lists, 1,000 levels (1 MB)',
    markdown: () => Array.from({ length: 1_000 }, (_, i) => `${'  '.repeat(i)}- a${i}`).join('\n'),
  },
  {
    name: 'a table of 2,000 columns × 200 rows',
    markdown: () => `|${'a|'.repeat(2_000)}\n|${'-|'.repeat(2_000)}\n${`|${'b|'.repeat(2_000)}\n`.repeat(200)}`,
    soakOnly: true,
  },
  {
    name: 'a table of 60,000 rows',
    markdown: () => `| a | b | c |\n|---|---|---|\n${'| x | *y* | `z` |\n'.repeat(60_000)}`,
    soakOnly: true,
  },
  {
    name: 'a 9 MB table',
    markdown: () => `|${'h|'.repeat(50)}\n|${'-|'.repeat(50)}\n${`|${'cell **b** |'.repeat(50)}\n`.repeat(15_000)}`,
  },
];
const CASES = ALL_CASES.filter((c) => SOAK || !c.soakOnly);

let dir: string;
let server: RunningServer;
let agent: Agent;
let key: string;
const savedLimit = process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS;

beforeAll(async () => {
  if (!SOAK) process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS = String(LIMIT_MS);
  dir = mkdtempSync(join(tmpdir(), 'dw-hostile-md-'));
  server = await startServer({ dataDir: dir, port: 0 });
  agent = trustingAgent(server.discovery.cert_path ?? '', 4);
  const created = await call(agent, `${server.discovery.url}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'x-docwright-admin': server.adminToken },
    body: { name: 'hostile markdown' },
  });
  key = (created.json() as { key: string }).key;
});

afterAll(async () => {
  if (savedLimit === undefined) delete process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS;
  else process.env.DOCWRIGHT_CONVERT_TIMEOUT_MS = savedLimit;
  await agent?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function convert(markdown: string): Promise<HttpResult> {
  return call(agent, `${server.discovery.url}/api/v1/convert`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: { markdown, template_id: BUILTIN_TEMPLATE_ID, mapping_id: BUILTIN_MAPPING_ID },
  });
}

describe(`pathological markdown over HTTPS (limit ${LIMIT_MS / 1000} s)`, () => {
  it(
    'each gives a valid document, 422 document_too_complex or 413 payload_too_large in time (503 server_busy if kept from the cores); the server keeps serving',
    async () => {
      const outcomes: string[] = [];
      let converted = 0;
      // Two at a time, as many as the machine has cores for.
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < CASES.length; i = next++) {
          const c = CASES[i] as (typeof CASES)[number];
          const markdown = c.markdown();
          const started = Date.now();
          const res = await convert(markdown);
          const ms = Date.now() - started;
          outcomes.push(
            `${c.name} (${(markdown.length / 1024).toFixed(0)} KB): ${res.status} in ${(ms / 1000).toFixed(1)} s`,
          );
          expect(ms, `${c.name} answered in time`).toBeLessThan(wallCapMs(LIMIT_MS) + SLACK_MS);
          if (res.status === 200) {
            converted += 1;
            const { ok, report } = await validateDocx(new Uint8Array(res.bytes));
            expect(ok, `${c.name}: ${report.slice(0, 2000)}`).toBe(true);
          } else {
            expect([413, 422, 503], `${c.name}: ${res.bytes.toString().slice(0, 300)}`).toContain(res.status);
            const { error } = res.json() as { error: { code: string; message: string } };
            const codes: Record<number, string> = {
              413: 'payload_too_large',
              422: 'document_too_complex',
              503: 'server_busy',
            };
            expect(error.code).toBe(codes[res.status]);
            expect(error.message).toMatch(/\S/);
          }
          expect((await call(agent, `${server.discovery.url}/api/health`)).status, `after ${c.name}`).toBe(200);
        }
      };
      await Promise.all([lane(), lane()]);
      console.log(`pathological markdown, limit ${LIMIT_MS / 1000} s:\n  ${outcomes.join('\n  ')}`);
      // Only documents delivered count against the quota.
      expect(server.store.usage(new Date())).toBe(converted);
      const after = await convert('# After the storm\n\nStill converting.');
      expect(after.status).toBe(200);
    },
    10 * 60_000,
  );

  it('10,000 indented list levels (100 MB of markdown) are refused with 413 before any conversion', async () => {
    const markdown = Array.from({ length: 10_000 }, (_, i) => `${'  '.repeat(i)}- a`).join('\n');
    expect(markdown.length).toBeGreaterThan(99 * MB);
    const res = await convert(markdown);
    expect(res.status).toBe(413);
    expect((res.json() as { error: { code: string } }).error.code).toBe('payload_too_large');
    expect((await call(agent, `${server.discovery.url}/api/health`)).status).toBe(200);
  });
});
