// `docwright convert` beside a running server is a small client (docs/performance.md, "The command line through a
// running server"): it loads what sending the job needs and nothing of the engine, nor Node's fetch (undici), which
// an ESM import of node:http loads through that module's lazy getters (~45 ms of CPU on this machine).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../bench/generate.ts';
import { validateDocx } from './helpers/docx.ts';
import { BIN, killAllChildren, startServe } from './helpers/docwright-process.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-convert-client-'));
afterAll(async () => {
  await killAllChildren();
  rmSync(temp, { recursive: true, force: true });
});

// Loaded before the command line: records every module URL it loads and, at exit, Node's own modules loaded.
const RECORDER = join(temp, 'record-modules.mjs');
writeFileSync(
  RECORDER,
  [
    "import { registerHooks } from 'node:module';",
    "import { writeFileSync } from 'node:fs';",
    'const urls = [];',
    'registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });',
    "process.on('exit', () => writeFileSync(process.env.DW_MODULES_OUT, JSON.stringify({ urls, builtins: process.moduleLoadList })));",
  ].join('\n'),
);

/** What a module loaded from FILE URL is: the engine's when it is one of its files, or a bundle chunk holding docx. */
function engineModule(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  if (/\/server\/convert\/|\/node_modules\/(docx|micromark|mdast-util-from-markdown|@xmldom)\//.test(url)) return true;
  return /\/dist\//.test(url) && readFileSync(fileURLToPath(url), 'utf8').includes('node_modules/docx/');
}

describe('docwright convert through a running server', () => {
  it('loads neither the engine nor Node’s fetch before it sends the job', async () => {
    const dataDir = join(temp, 'data');
    const env = { ...process.env, DOCWRIGHT_KEYCHAIN: 'off' };
    const server = await startServe(['--data-dir', dataDir], { env });
    const input = join(temp, 'doc.md');
    writeFileSync(input, generateMarkdown(8 * 1024));
    const output = join(temp, 'doc.docx');
    const record = join(temp, 'modules.json');
    const child = spawn(
      process.execPath,
      ['--import', RECORDER, BIN, '--data-dir', dataDir, 'convert', input, '-o', output, '--no-images'],
      { env: { ...env, DW_MODULES_OUT: record }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`converted by the running server (pid ${String(server.pid)})`);
    await validateDocx(output);
    const loaded = JSON.parse(readFileSync(record, 'utf8')) as { urls: string[]; builtins: string[] };
    expect(loaded.urls.some((url) => url.endsWith('/bin/docwright.js'))).toBe(true);
    expect(loaded.urls.filter(engineModule)).toEqual([]);
    expect(loaded.builtins.filter((name) => /undici|http2/.test(name))).toEqual([]);
    server.child.kill('SIGTERM');
    await server.exited;
  }, 60_000);
});
