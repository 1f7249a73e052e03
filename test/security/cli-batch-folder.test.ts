// The attacker's review of batch conversion (`docwright convert FOLDER -o OUT`): one entry of the folder that cannot
// be read (a link to nothing, one that loops, one to a folder or a pipe) stops neither the folder nor the batch: its
// own error in one sentence where it is a .md name to read, the other files still written, exit status 1; a link to
// a pipe is never opened (the command would wait for ever).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateDocx } from '../helpers/docx.ts';
import { runCli } from '../helpers/docwright-process.ts';

const temp = mkdtempSync(join(tmpdir(), 'dw-batch-folder-'));
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

const env = { ...process.env, DOCWRIGHT_HOME: join(temp, 'data'), DOCWRIGHT_KEYCHAIN: 'off' };

describe('a folder holding entries that cannot be read', () => {
  it('converts its other .md files and says which entry failed', async () => {
    const docs = join(temp, 'docs');
    mkdirSync(docs);
    writeFileSync(join(docs, 'a.md'), '# Alpha\n');
    writeFileSync(join(docs, 'c.md'), '# Gamma\n');
    // Planted by someone who can write the folder, or left by a moved file.
    symlinkSync(join(temp, 'gone.md'), join(docs, 'b-dangling.md'));
    symlinkSync('b-loop.md', join(docs, 'b-loop.md'));
    mkdirSync(join(temp, 'sub.md'));
    symlinkSync(join(temp, 'sub.md'), join(docs, 'b-folder.md'));
    execFileSync('mkfifo', [join(temp, 'pipe')]);
    symlinkSync(join(temp, 'pipe'), join(docs, 'b-pipe.md'));
    const out = join(temp, 'out');
    const result = await runCli(['convert', docs, '-o', out], { env, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(1);
    expect(readdirSync(out).sort()).toEqual(['a.docx', 'c.docx']);
    for (const name of ['a.docx', 'c.docx']) {
      const { ok, report } = await validateDocx(readFileSync(join(out, name)));
      expect(ok, report).toBe(true);
    }
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('Wrote '))).toHaveLength(2);
    // The links that name no file to read: each its own line.
    const errors = lines.filter((line) => line.startsWith('docwright: '));
    expect(errors).toHaveLength(2);
    expect(errors.join('\n')).toMatch(/b-dangling\.md.*there is no such file/);
    expect(errors.join('\n')).toMatch(/b-loop\.md/);
    expect(result.stderr).not.toMatch(/b-folder|b-pipe|cannot read the folder/);
  }, 120_000);
});
