// A folder on the way to a file swapped for a symbolic link between the check and the open (another local user
// renaming in a loop, as with renameat2 RENAME_EXCHANGE): the image folder source and MCP's input_path and
// output_path must never read or write through it. Checking the real path and then opening with O_NOFOLLOW guards only
// the last component: found by the attacker's review, a root-only file embedded in 1 of 3 conversions run by root.
import { spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { folderSource } from '../../server/confined/image-folder.ts';
import { createMcpServer } from '../../server/mcp/server.ts';
import { Services } from '../../server/services.ts';
import { Store } from '../../server/store/store.ts';
import { part, validateDocx } from '../helpers/docx.ts';
import { embeddedDocx, structured } from '../mcp/client.ts';

const SECRET = 'SECRET-MARKER-0600';
const PNG = readFileSync(join(import.meta.dirname, '../fixtures/images/doc/img/small.png'));
// The same image with the secret after its end: a reader that returns it gave away the file outside.
const SECRET_PNG = Buffer.concat([PNG, Buffer.from(SECRET)]);

let dir: string;
let doc: string;
let outside: string;
let store: Store;
let services: Services;
let client: Client;
let swapper: ChildProcess | undefined;

const call = (args: Record<string, unknown>) =>
  client.callTool({ name: 'convert_markdown', arguments: args }) as Promise<CallToolResult>;

/**
 * Swaps doc/sub between the real folder and a link to the outside folder, as fast as renames go, until stopped (or
 * 60 seconds, so that it can never outlive the test by long).
 */
function startSwapping(): void {
  const script = `
    const { renameSync } = require('node:fs');
    const d = process.argv[1];
    const end = Date.now() + 60000;
    while (Date.now() < end) {
      try { renameSync(d + '/sub', d + '/sub-dir'); renameSync(d + '/sub-link', d + '/sub'); } catch {}
      try { renameSync(d + '/sub', d + '/sub-link'); renameSync(d + '/sub-dir', d + '/sub'); } catch {}
    }`;
  swapper = spawn(process.execPath, ['-e', script, doc], { stdio: 'ignore' });
}

async function stopSwapping(): Promise<void> {
  const child = swapper;
  swapper = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await exited;
}

/** Puts doc/sub back as the real folder, whichever state the swapper was stopped in. */
function restore(): void {
  const sub = join(doc, 'sub');
  if (lstatSync(sub, { throwIfNoEntry: false })?.isSymbolicLink()) renameSync(sub, join(doc, 'sub-link'));
  if (!existsSync(sub)) renameSync(join(doc, 'sub-dir'), sub);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dw-swap-race-'));
  const allowed = join(dir, 'allowed');
  doc = join(allowed, 'doc');
  outside = join(dir, 'outside');
  mkdirSync(join(doc, 'sub'), { recursive: true });
  mkdirSync(outside);
  // The same names inside and outside: what a swapped folder leads to.
  writeFileSync(join(doc, 'sub', 'a.png'), PNG);
  writeFileSync(join(outside, 'a.png'), SECRET_PNG, { mode: 0o600 });
  writeFileSync(join(doc, 'sub', 'note.md'), '# Benign\n');
  writeFileSync(join(outside, 'note.md'), `# ${SECRET}\n`, { mode: 0o600 });
  writeFileSync(join(doc, 'sub', 'victim.docx'), 'inside, may be replaced');
  writeFileSync(join(outside, 'victim.docx'), 'keep me', { mode: 0o600 });
  symlinkSync(outside, join(doc, 'sub-link'));
  store = await Store.open(join(dir, 'data'));
  services = new Services(store);
  await store.updateSettings({ mcp_output_dir: allowed });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(services, { embedLimit: 10 * 1024 * 1024 }).connect(serverSide);
  client = new Client({ name: 'docwright-swap-race-test', version: '1.0.0' });
  await client.connect(clientSide);
});

afterEach(async () => {
  await stopSwapping();
  restore();
});

afterAll(async () => {
  await stopSwapping();
  await client?.close();
  await services?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `attempt` while the swapper runs, until it returns true (a leak), `tries` times or `ms` have passed. */
async function race(tries: number, ms: number, attempt: () => boolean | Promise<boolean>): Promise<number> {
  startSwapping();
  await new Promise((done) => setTimeout(done, 100));
  const end = Date.now() + ms;
  let leaked = 0;
  for (let i = 0; i < tries && leaked === 0 && Date.now() < end; i++) if (await attempt()) leaked++;
  await stopSwapping();
  restore();
  return leaked;
}

describe('a folder swapped for a link between the check and the open', () => {
  it('the image folder source never returns the file outside (20,000 reads or 10 seconds)', async () => {
    const source = folderSource(doc);
    const leaked = await race(20_000, 10_000, () => {
      const result = source.read('sub/a.png', 1 << 20);
      return result.ok && result.bytes.byteLength !== PNG.byteLength;
    });
    expect(leaked).toBe(0);
    // Unswapped, the same read works.
    expect(source.read('sub/a.png', 1 << 20)).toEqual({ ok: true, bytes: new Uint8Array(PNG) });
  });

  it('input_path never converts the file outside (200 conversions or 10 seconds)', async () => {
    const leaked = await race(200, 10_000, async () => {
      const result = await call({ input_path: 'doc/sub/note.md' });
      return !result.isError && part(embeddedDocx(result), 'word/document.xml').includes(SECRET);
    });
    expect(leaked).toBe(0);
    const result = await call({ input_path: 'doc/sub/note.md' });
    expect(part(embeddedDocx(result), 'word/document.xml')).toContain('Benign');
  });

  it('output_path never writes, creates or truncates a file outside (60 conversions)', async () => {
    const before = readdirSync(outside).sort();
    let i = 0;
    await race(60, 60_000, async () => {
      const output_path = i % 2 === 0 ? 'doc/sub/victim.docx' : `doc/sub/new-${i}.docx`;
      i++;
      await call({ markdown: '# Written', output_path, overwrite: true });
      return readFileSync(join(outside, 'victim.docx'), 'utf8') !== 'keep me';
    });
    // Compared as a flag: a failure must not print a .docx to the terminal.
    expect(readFileSync(join(outside, 'victim.docx'), 'utf8') === 'keep me', 'outside/victim.docx kept').toBe(true);
    expect(readdirSync(outside).sort()).toEqual(before);
    const saved = structured(await call({ markdown: '# Written', output_path: 'doc/sub/final.docx' })).saved_to;
    expect(saved).toBe(join(doc, 'sub', 'final.docx'));
    const check = await validateDocx(join(doc, 'sub', 'final.docx'));
    expect(check.ok, check.report).toBe(true);
  });
});
