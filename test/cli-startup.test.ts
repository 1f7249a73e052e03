// What `docwright convert` does at start-up to be fast must not change its output: the bundle's built-in template,
// prepared at build time (scripts/build.mjs), gives the same document as the sources reading the template.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { generateMarkdown } from '../bench/generate.ts';
import { convert, defaultTemplate, readTemplate } from '../server/convert/index.ts';
import { templateFromJson, templateToJson } from '../server/convert/template/prepared.ts';
import { runCli } from './helpers/docwright-process.ts';

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
      const expected = convert({ markdown, template: defaultTemplate() }).docx;
      expect(partsOf(readFileSync(output)), name).toEqual(partsOf(expected));
    }
  });
});
