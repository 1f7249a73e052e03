// `docwright` keeps V8's compiled code of its bundle on disk (module.enableCompileCache), so a start after the first
// does not compile the engine again: the cache appears in the user's own cache folder after one conversion, never in
// the shared temp folder, and a cache folder others may write is not used.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/docwright-process.ts';

const temp = mkdtempSync(join(tmpdir(), 'docwright-compile-cache-'));
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

/** Every file under a folder. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe('docwright start-up', () => {
  const input = join(temp, 'in.md');
  writeFileSync(input, '# Title\n\nSome *text*.\n');
  const env = { ...process.env, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined };
  // Linux's per-user cache folder is $XDG_CACHE_HOME (else ~/.cache).
  const cacheOf = (xdg: string) => join(xdg, 'docwright', 'compile-cache');

  it.runIf(process.platform === 'linux')(
    "keeps a compile cache in the user's cache folder (private), none when NODE_DISABLE_COMPILE_CACHE=1",
    async () => {
      const off = join(temp, 'off');
      mkdirSync(off);
      const disabled = await runCli(['convert', input, '-o', join(temp, 'off.docx')], {
        env: { ...env, XDG_CACHE_HOME: off, TMPDIR: off, NODE_DISABLE_COMPILE_CACHE: '1' },
        timeoutMs: 120_000,
      });
      expect(disabled.code, disabled.stderr).toBe(0);
      expect(existsSync(join(off, 'docwright'))).toBe(false);
      expect(existsSync(join(off, 'node-compile-cache'))).toBe(false);

      const on = join(temp, 'on');
      const tmp = join(temp, 'on-tmp');
      mkdirSync(on);
      mkdirSync(tmp);
      const first = await runCli(['convert', input, '-o', join(temp, 'on.docx')], {
        env: { ...env, XDG_CACHE_HOME: on, TMPDIR: tmp },
        timeoutMs: 120_000,
      });
      expect(first.code, first.stderr).toBe(0);
      expect(filesUnder(cacheOf(on)).length).toBeGreaterThan(0);
      expect(statSync(cacheOf(on)).mode & 0o077).toBe(0);
      // Nothing in the shared temp folder, where another user could plant code for us to run.
      expect(existsSync(join(tmp, 'node-compile-cache'))).toBe(false);
    },
    300_000,
  );

  it.runIf(process.platform === 'linux')(
    "is used by the conversion's worker thread too, which loads the engine",
    async () => {
      const xdg = join(temp, 'worker');
      mkdirSync(xdg);
      const convert = () =>
        runCli(['convert', input, '-o', join(temp, 'worker.docx')], {
          // Node says what its compile cache does on standard error.
          env: { ...env, XDG_CACHE_HOME: xdg, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
          timeoutMs: 120_000,
        });
      expect((await convert()).code).toBe(0);
      const second = await convert();
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/V8 code cache for ESM file:\S*\/dist\/convert-worker\.js was accepted/);
    },
    300_000,
  );

  it.runIf(process.platform === 'linux')(
    'does not use a cache folder others may write (planted), and converts all the same',
    async () => {
      const xdg = join(temp, 'planted');
      mkdirSync(cacheOf(xdg), { recursive: true });
      chmodSync(cacheOf(xdg), 0o777);
      const result = await runCli(['convert', input, '-o', join(temp, 'planted.docx')], {
        env: { ...env, XDG_CACHE_HOME: xdg },
        timeoutMs: 120_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(filesUnder(cacheOf(xdg))).toEqual([]);
    },
    300_000,
  );
});
