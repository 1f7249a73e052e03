import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync, strFromU8 } from 'fflate';

const run = promisify(execFile);

/** The shared OOXML validator (../shared/ooxml-schemas/validate-docx next to the repository). */
export const VALIDATOR = resolve(import.meta.dirname, '../../../shared/ooxml-schemas/validate-docx');

/** Reads one part of a .docx as text. */
export function part(docx: Uint8Array, path: string): string {
  const files = unzipSync(docx, { filter: (f) => f.name === path });
  const data = files[path];
  if (!data) throw new Error(`no part ${path}`);
  return strFromU8(data);
}

/** Lists the parts of a .docx. */
export function partNames(docx: Uint8Array): string[] {
  return Object.keys(unzipSync(docx));
}

let tempRoot: string | undefined;

/** Writes bytes to a fresh temporary file (removed when the test process ends) and returns its path. */
export function tempFile(bytes: Uint8Array, name = 'out.docx'): string {
  if (!tempRoot) {
    const root = mkdtempSync(join(tmpdir(), 'dw-test-'));
    tempRoot = root;
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  }
  const dir = mkdtempSync(join(tempRoot, 'f-'));
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Runs the OOXML schema validator (with Word's extra checks) on a document; resolves with its report. */
export async function validateDocx(docx: Uint8Array | string): Promise<{ ok: boolean; report: string }> {
  const path = typeof docx === 'string' ? docx : tempFile(docx);
  try {
    const { stdout, stderr } = await run(VALIDATOR, ['--all', path], { maxBuffer: 64 * 1024 * 1024 });
    return { ok: true, report: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: unknown; message?: string };
    // Not a verdict on the document: the validator could not run (a clone outside the shared layout).
    if (e.code === 'ENOENT' || e.code === 'EACCES')
      throw new Error(`the OOXML validator could not run (${e.code}): expected at ${VALIDATOR}`, { cause: error });
    return { ok: false, report: `${e.stdout ?? ''}${e.stderr ?? ''}` || (e.message ?? String(error)) };
  }
}

/**
 * Prints .docx files to PDF with one headless LibreOffice start (it is slow to start), its profile inside `outDir`;
 * the PDFs land in `outDir` under the documents' names.
 */
export async function libreOfficePdfs(docxPaths: readonly string[], outDir: string, timeout = 120_000): Promise<void> {
  await run(
    'libreoffice',
    [
      `-env:UserInstallation=file://${outDir}/profile`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      outDir,
      ...docxPaths,
    ],
    { timeout },
  );
}

/** Opens a document with LibreOffice headless, converts it to PDF and returns the PDF's text (pdftotext). */
export async function pdfText(docx: Uint8Array): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dw-lo-'));
  const input = join(dir, 'doc.docx');
  writeFileSync(input, docx);
  try {
    await libreOfficePdfs([input], dir);
    const pdf = join(dir, 'doc.pdf');
    if (!existsSync(pdf)) throw new Error('LibreOffice produced no PDF');
    const { stdout } = await run('pdftotext', ['-layout', pdf, '-'], { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads a fixture file. */
export function fixture(...path: string[]): Uint8Array {
  return new Uint8Array(readFileSync(resolve(import.meta.dirname, '../fixtures', ...path)));
}

/** Pretty-prints XML one element per line (for readable fixtures and diffs). */
export function prettyXml(xml: string): string {
  const tokens = xml.replace(/>\s*</g, '><').split(/(?=<)|(?<=>)/);
  let depth = 0;
  const lines: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t.startsWith('</')) {
      depth -= 1;
      lines.push('  '.repeat(depth) + t);
    } else if (t.startsWith('<') && !t.endsWith('/>') && !t.startsWith('<?')) {
      const next = tokens[i + 1];
      const close = tokens[i + 2];
      // An element holding only text stays on one line, its text exactly as written.
      if (next !== undefined && !next.startsWith('<') && close?.startsWith('</')) {
        lines.push('  '.repeat(depth) + t + next + close);
        i += 2;
      } else {
        lines.push('  '.repeat(depth) + t);
        depth += 1;
      }
    } else if (t.length > 0) {
      lines.push('  '.repeat(depth) + t);
    }
  }
  return lines.join('\n') + '\n';
}
