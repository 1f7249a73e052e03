// `docwright` keeps V8's compiled code of its bundle on disk (module.enableCompileCache), so a start after the first
// does not compile the engine again: the cache appears in the temp folder after one conversion.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
  it('keeps a compile cache in the temp folder, and none when NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const input = join(temp, 'in.md');
    writeFileSync(input, '# Title\n\nSome *text*.\n');
    const env = { ...process.env, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined };

    const off = join(temp, 'off');
    mkdirSync(off);
    const disabled = await runCli(['convert', input, '-o', join(temp, 'off.docx')], {
      env: { ...env, TMPDIR: off, NODE_DISABLE_COMPILE_CACHE: '1' },
      timeoutMs: 120_000,
    });
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(existsSync(join(off, 'node-compile-cache'))).toBe(false);

    const on = join(temp, 'on');
    mkdirSync(on);
    const first = await runCli(['convert', input, '-o', join(temp, 'on.docx')], {
      env: { ...env, TMPDIR: on },
      timeoutMs: 120_000,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(filesUnder(join(on, 'node-compile-cache')).length).toBeGreaterThan(0);
  }, 300_000);
});
