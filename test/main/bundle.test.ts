// The build of the shell (scripts/build-electron.mjs): the preload is CommonJS that needs nothing but Electron and
// exposes exactly the typed API on the shared channels; the main bundle loads only Node, Electron and the keychain.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPC } from '../../main/ipc-channels.ts';
import type { JobMessage, ReadyMessage, ResultMessage } from '../../server/convert-pool/protocol.ts';
import { defaultTemplate, DEFAULT_RULES } from '../../server/convert/index.ts';
import { validateDocx } from '../helpers/docx.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { buildElectron } from '../../scripts/build-electron.mjs';

const root = resolve(import.meta.dirname, '../..');
let out: string;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'docwright-shell-build-'));
  await buildElectron(root, out);
});
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Runs the preload as Electron's sandbox does: a CommonJS function with a `require` that knows `electron` only. */
function loadPreload() {
  const required: string[] = [];
  const exposed = new Map<string, unknown>();
  const invoked: Array<[string, unknown[]]> = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: {
      invoke: (channel: string, ...args: unknown[]) => {
        invoked.push([channel, args]);
        return Promise.resolve(null);
      },
    },
  };
  const module = { exports: {} };
  const require = (name: string) => {
    required.push(name);
    if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
    return electron;
  };
  runInNewContext(readFileSync(join(out, 'preload.cjs'), 'utf8'), { require, module, exports: module.exports });
  return { required, exposed, invoked };
}

describe('the preload bundle', () => {
  it('is CommonJS that requires only electron', () => {
    const source = readFileSync(join(out, 'preload.cjs'), 'utf8');
    expect(source).not.toMatch(/^\s*(import|export)\s/m);
    expect(loadPreload().required).toEqual(['electron']);
  });

  it('exposes window.docwright with the typed API and nothing else (never ipcRenderer)', () => {
    const { exposed } = loadPreload();
    expect([...exposed.keys()]).toEqual(['docwright']);
    const api = exposed.get('docwright') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual([
      'isDesktop',
      'openFiles',
      'revealInFolder',
      'saveAllToFolder',
      'saveFile',
    ]);
    expect(api.isDesktop).toBe(true);
    expect(Object.values(api).some((value) => typeof value === 'object' && value !== null)).toBe(false);
  });

  it('sends each call on its shared channel with only the documented fields', async () => {
    const { exposed, invoked } = loadPreload();
    const api = exposed.get('docwright') as {
      saveFile(file: unknown): Promise<unknown>;
      saveAllToFolder(files: unknown): Promise<unknown>;
      openFiles(): Promise<unknown>;
      revealInFolder(path: string): Promise<unknown>;
    };
    const bytes = new Uint8Array([80, 75]);
    await api.saveFile({ suggestedName: 'a.docx', bytes, extra: 'dropped' });
    await api.saveAllToFolder([{ name: 'b.docx', bytes, extra: 1 }]);
    await api.openFiles();
    await api.revealInFolder('/tmp/a.docx');
    expect(invoked).toEqual([
      [IPC.saveFile, [{ suggestedName: 'a.docx', bytes }]],
      [IPC.saveAllToFolder, [[{ name: 'b.docx', bytes }]]],
      [IPC.openFiles, []],
      [IPC.revealInFolder, ['/tmp/a.docx']],
    ]);
  });
});

describe('the main bundle', () => {
  it('is an ES module that loads only Node built-ins, Electron and the keychain module from outside', () => {
    const source = readFileSync(join(out, 'main.js'), 'utf8');
    const imported = [...source.matchAll(/^import\s[^'"]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1]);
    const required = [...source.matchAll(/__require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const outside = new Set([...imported, ...required].filter((name) => name !== undefined && !builtins.has(name)));
    expect([...outside].sort()).toEqual(['@napi-rs/keyring', 'electron']);
    expect(imported).toContain('electron');
  });

  it('sits where package.json "main" points, next to its preload and icons', () => {
    expect(packageJson.main).toBe('dist/main/index.js');
    expect(readFileSync(join(out, 'index.js'), 'utf8')).toMatch(/^import '\.\/main\.js';$/m);
    for (const file of ['index.js', 'main.js', 'preload.cjs', 'icon.png', 'tray.png', 'tray@2x.png'])
      expect(readFileSync(join(out, file)).byteLength).toBeGreaterThan(0);
  });
});

describe('the conversion worker bundle', () => {
  // The embedded server's pool looks for convert-worker.js next to main.js (electron-builder.yml unpacks it).
  it('sits next to main.js and converts as a worker thread', async () => {
    const worker = new Worker(join(out, 'convert-worker.js'));
    try {
      const messages: (ResultMessage | ReadyMessage)[] = [];
      const answered = new Promise<void>((done, fail) => {
        worker.on('message', (m: ResultMessage | ReadyMessage) => {
          messages.push(m);
          if (!('ready' in m)) done();
        });
        worker.on('error', fail);
      });
      const job: JobMessage = {
        id: 1,
        markdown: '# From the shell',
        mapping: DEFAULT_RULES,
        created: new Date(0),
        templateKey: 'builtin',
        templateBytes: defaultTemplate(),
        evict: [],
      };
      worker.postMessage(job);
      await answered;
      // Ready, with its thread id on Linux (the pool reads the conversion's CPU time by it).
      expect(messages[0]).toEqual(
        process.platform === 'linux' ? { ready: true, tid: expect.any(Number) as unknown } : { ready: true },
      );
      const result = messages[1] as ResultMessage;
      expect(result).toMatchObject({ id: 1, ok: true, warnings: [] });
      if (result.ok) expect((await validateDocx(result.docx)).ok).toBe(true);
    } finally {
      await worker.terminate();
    }
  });
});
