// A server at rest (issue 31: at most 150 MB in all its processes; the figure itself is the bench's, bench/goals.ts):
// its conversion workers end when idle and give their memory back to the system (V8's flags in
// bin/server-flags.mjs: a dead worker's pages are not kept for another isolate, and its compilers' zone memory is
// V8's pages, not malloc's), and what no one asked for is not loaded (MCP, until an MCP request comes; the markdown
// parser, which only the conversion workers run; the certificate generator, once the certificate is made).
import { readdirSync, readFileSync, rmSync, writeFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../bench/generate.ts';
import { killAllChildren, runCli, startServe } from './helpers/docwright-process.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-at-rest-'));
afterAll(async () => {
  await killAllChildren();
  rmSync(temp, { recursive: true, force: true });
});

// Loaded into every Node process of the test's server: each main thread writes the module URLs it loaded when it
// exits (a conversion worker's are its own).
const RECORDER = join(temp, 'record-modules.mjs');
writeFileSync(
  RECORDER,
  [
    "import { registerHooks } from 'node:module';",
    "import { writeFileSync } from 'node:fs';",
    "import { join } from 'node:path';",
    "import { isMainThread } from 'node:worker_threads';",
    'const urls = [];',
    'registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });',
    "if (isMainThread) process.on('exit', () => writeFileSync(join(process.env.DW_MODULES_DIR, `${process.pid}.json`), JSON.stringify(urls)));",
  ].join('\n'),
);

/** Resident memory of a process, MB (Linux). */
const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${String(pid)}/status`, 'latin1'))?.[1] ?? NaN) / 1024;

/** The names of a process's threads (Linux): conversion workers are `docwright-convert…`. */
function threadNames(pid: number): string[] {
  const tasks = `/proc/${String(pid)}/task`;
  return readdirSync(tasks).flatMap((tid) => {
    try {
      return [readFileSync(join(tasks, tid, 'comm'), 'utf8').trim()];
    } catch {
      return [];
    }
  });
}

/** Whether a loaded module is MCP's (the SDK, or our MCP server), from the sources or a bundle chunk holding it. */
function mcpModule(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  if (/@modelcontextprotocol\/|\/server\/mcp\/(server|tools)/.test(url)) return true;
  return (
    /\/dist\//.test(url) && readFileSync(fileURLToPath(url), 'utf8').includes('node_modules/@modelcontextprotocol/')
  );
}

/** Whether a loaded module is the markdown parser's (micromark, remark), from the sources or a bundle chunk holding it. */
function parserModule(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  if (/\/node_modules\/(micromark|remark-parse|mdast-util-from-markdown)\//.test(url)) return true;
  return /\/dist\//.test(url) && readFileSync(fileURLToPath(url), 'utf8').includes('node_modules/micromark/');
}

/** Whether a loaded module is the certificate generator's (selfsigned and its X.509 library). */
function certificateModule(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  if (/\/node_modules\/(selfsigned|@peculiar\/x509)\//.test(url)) return true;
  return /\/dist\//.test(url) && readFileSync(fileURLToPath(url), 'utf8').includes('node_modules/@peculiar/x509/');
}

/** Whether a loaded module is docx's (which lays out the built-in template; the conversion workers load it). */
function docxModule(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  if (/\/node_modules\/docx\//.test(url)) return true;
  return /\/dist\//.test(url) && readFileSync(fileURLToPath(url), 'utf8').includes('node_modules/docx/');
}

describe('a server at rest', () => {
  it.runIf(process.platform === 'linux')(
    'gives its idle workers’ memory back, and has loaded neither MCP, the parser, docx nor the certificate generator',
    async () => {
      const dataDir = join(temp, 'data');
      const env = {
        ...process.env,
        DOCWRIGHT_KEYCHAIN: 'off',
        DOCWRIGHT_WORKER_IDLE_MS: '1000',
        NODE_OPTIONS: `--import=${RECORDER}`,
        DW_MODULES_DIR: temp,
      };
      // Its certificate made by a first start (which loads the generator), then the server measured.
      const first = await startServe(['--data-dir', dataDir], { env });
      first.child.kill('SIGTERM');
      await first.exited;
      const server = await startServe(['--data-dir', dataDir], { env });
      const { pid } = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')) as { pid: number };
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const before = rssMb(pid);
      const input = join(temp, 'doc.md');
      writeFileSync(input, generateMarkdown(120 * 1024));
      const cliEnv = { ...process.env, DOCWRIGHT_KEYCHAIN: 'off' };
      for (let i = 0; i < 2; i++) {
        const cli = await runCli(
          ['--data-dir', dataDir, 'convert', input, '-o', join(temp, 'doc.docx'), '--no-images'],
          {
            env: cliEnv,
            timeoutMs: 60_000,
          },
        );
        expect(cli.stderr).toContain(`converted by the running server (pid ${String(pid)})`);
      }
      const busy = rssMb(pid);
      const end = Date.now() + 30_000;
      while (threadNames(pid).some((name) => name.startsWith('docwright-conv')) && Date.now() < end)
        await new Promise((resolve) => setTimeout(resolve, 200));
      expect(threadNames(pid).filter((name) => name.startsWith('docwright-conv'))).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const after = rssMb(pid);
      // Measured: ~140 MB at start, ~300 MB while converting, ~160 MB once the workers ended (~290 MB when V8 kept
      // the dead workers' pages, and their compilers' memory stayed in malloc's arenas).
      expect(busy - before, `before ${before.toFixed(0)} MB, converting ${busy.toFixed(0)} MB`).toBeGreaterThan(60);
      expect.soft(after - before, `before ${before.toFixed(0)} MB, after ${after.toFixed(0)} MB`).toBeLessThan(60);
      server.child.kill('SIGTERM');
      await server.exited;
      const record = join(temp, `${String(pid)}.json`);
      expect(existsSync(record)).toBe(true);
      const loaded = JSON.parse(readFileSync(record, 'utf8')) as string[];
      expect.soft(loaded.filter(mcpModule)).toEqual([]);
      expect.soft(loaded.filter(parserModule)).toEqual([]);
      expect.soft(loaded.filter(certificateModule)).toEqual([]);
      // Nor docx: the built-in template's bytes are made at a data folder's first start only.
      expect.soft(loaded.filter(docxModule)).toEqual([]);
    },
    120_000,
  );
});
