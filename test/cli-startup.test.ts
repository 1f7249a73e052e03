// What `docwright convert` does at start-up to be fast must not change its output: the bundle's built-in template,
// prepared at build time (scripts/build.mjs), gives the same document as the sources reading the template; and the
// launcher (bin/docwright.js) has V8 optimise less during a one-shot conversion.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../bench/generate.ts';
import { convert, defaultTemplate, readTemplate } from '../server/convert/index.ts';
import { templateFromJson, templateToJson } from '../server/convert/template/prepared.ts';
import { BIN, runCli } from './helpers/docwright-process.ts';

const run = promisify(execFile);

const temp = mkdtempSync(join(tmpdir(), 'docwright-startup-'));
afterAll(() => {
  rmSync(temp, { recursive: true, force: true });
});

const FIXTURES = join(import.meta.dirname, 'fixtures/elements');
const documents: Record<string, string> = {
  'bench.md': generateMarkdown(12 * 1024),
  'title-block.md': readFileSync(join(FIXTURES, 'title-block/input.md'), 'utf8'),
  'footnotes.md': readFileSync(join(FIXTURES, 'footnotes/input.md'), 'utf8'),
};

/** Every part of a .docx but the document properties, which hold the time of the conversion. */
function partsOf(docx: Uint8Array): [string, string][] {
  return Object.entries(unzipSync(docx))
    .filter(([name]) => name !== 'docProps/core.xml')
    .map(([name, bytes]) => [name, Buffer.from(bytes).toString('base64')]);
}

describe('docwright convert start-up', () => {
  it('reads back the prepared built-in template as the template read from its bytes', () => {
    const read = readTemplate(defaultTemplate());
    expect(templateFromJson(templateToJson(read))).toEqual(read);
  });

  it('converts with the bundled, prepared built-in template exactly as the sources do', async () => {
    for (const [name, markdown] of Object.entries(documents)) {
      const input = join(temp, name);
      writeFileSync(input, markdown);
      const output = join(temp, `${name}.docx`);
      const cli = await runCli(['convert', input, '-o', output, '--no-images', '-q'], { timeoutMs: 120_000 });
      expect(cli.code, cli.stderr).toBe(0);
      const expected = (await convert({ markdown, template: defaultTemplate() })).docx;
      expect(partsOf(readFileSync(output)), name).toEqual(partsOf(expected));
    }
  });

  it('has V8 optimise far fewer functions in `convert` through the launcher than the bundle does by default', async () => {
    const input = join(temp, 'small.md');
    writeFileSync(input, generateMarkdown(10 * 1024));
    /** How many functions V8 optimised (TurboFan, and Maglev where it is on: Node 24+) while NODE ran SCRIPT convert. */
    const optimised = async (script: string): Promise<number> => {
      const args = ['--trace-opt', script, 'convert', input, '-o', join(temp, 'small.docx'), '--no-images', '-q'];
      const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
      return stdout.split('\n').filter((line) => /^\[completed (optimizing|compiling) /.test(line)).length;
    };
    const byDefault = await optimised(resolve(import.meta.dirname, '../dist/cli.js'));
    const launched = await optimised(BIN);
    expect(byDefault).toBeGreaterThan(20);
    expect(launched).toBeLessThan(byDefault / 3);
  }, 120_000);
});
