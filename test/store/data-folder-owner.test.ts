// The store owns the data folder: every entry of it is named once, in server/store/paths.ts (dataPaths), and every
// path under it is opened, written, listed or deleted by server/store/. Two halves keep that so:
// - at run time, a started server (with its certificate, key secret, admin token, discovery file and session link)
//   leaves nothing in its data folder that dataPaths does not name, so the list below is the whole folder;
// - in the sources (server/, main/, bin/, scripts/; comments aside), no file outside server/store/ names an entry of
//   that list (a file name such as db.json in any string; a folder name such as templates as an argument of
//   join/resolve), builds a path from the data folder (join(dataDir, …), `${dataDir}/…`), or uses dataPaths.
// The scanner is tried on examples of each kind, so that it cannot quietly stop finding anything.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSecret } from '../../server/auth/secret.ts';
import { sessionLinkLines } from '../../server/cli/session-link.ts';
import { startServer } from '../../server/serve.ts';
import { dataPaths } from '../../server/store/paths.ts';

const root = join(import.meta.dirname, '..', '..');

/** Every entry of a data folder as dataPaths names it, relative to the folder (`db.json`, `tls/localhost-cert.pem`). */
const ENTRIES = Object.values(dataPaths(root)).map((path) => relative(root, path).split(sep).join('/'));
/** Names of files (a dot or a dash in them): found in any string of the sources. */
const FILE_NAMES = [...new Set(ENTRIES.flatMap((entry) => entry.split('/')).filter((name) => /[.-]/.test(name)))];
/** Plain words (templates, tls): found only as an argument of join/resolve, where a word is a path segment. */
const FOLDER_NAMES = [...new Set(ENTRIES.flatMap((entry) => entry.split('/')).filter((name) => !/[.-]/.test(name)))];
/** What a variable that holds the data folder is called. */
const DATA_FOLDER_NAMES = /\b(?:dataDir|dataDirectory|data_dir|DOCWRIGHT_HOME)\b/;

interface Token {
  kind: 'code' | 'string';
  text: string;
}

/** A source file as code and string literals, its comments left out (template literals: their text parts). */
function tokens(source: string): Token[] {
  const out: Token[] = [];
  let code = '';
  let i = 0;
  const flush = () => {
    if (code) out.push({ kind: 'code', text: code });
    code = '';
  };
  while (i < source.length) {
    const c = source[i] ?? '';
    const next = source[i + 1] ?? '';
    if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      flush();
      let text = '';
      i++;
      while (i < source.length && source[i] !== c) {
        if (source[i] === '\\') {
          text += source.slice(i, i + 2);
          i += 2;
        } else if (c === '`' && source[i] === '$' && source[i + 1] === '{') {
          // The expression of a template literal is code, marked by ${ }; nested templates are rare enough here.
          let depth = 1;
          let j = i + 2;
          while (j < source.length && depth > 0) {
            if (source[j] === '{') depth++;
            else if (source[j] === '}') depth--;
            j++;
          }
          text += `\${${source.slice(i + 2, j - 1)}}`;
          i = j;
        } else {
          text += source.charAt(i);
          i++;
        }
      }
      i++;
      out.push({ kind: 'string', text });
    } else {
      code += c;
      i++;
    }
  }
  flush();
  return out;
}

/** What a source file does with the data folder that only server/store/ may do; one line each. */
function dataFolderPaths(source: string): string[] {
  const found: string[] = [];
  let code = '';
  // The brackets open at this point of the code, each with the name of the call it opens (`join` in `path.join(`).
  const open: (string | undefined)[] = [];
  for (const token of tokens(source)) {
    if (token.kind === 'code') {
      for (const c of token.text) {
        if (c === '(') open.push(/([\w$.]+)\s*$/.exec(code.slice(-80))?.[1] ?? '');
        else if (c === '[' || c === '{') open.push(undefined);
        else if (c === ')' || c === ']' || c === '}') open.pop();
        code += c;
      }
      continue;
    }
    const call = open.at(-1);
    const pathCall = call !== undefined && /(?:^|\.)(?:join|resolve)$/.test(call);
    for (const name of FILE_NAMES)
      if (new RegExp(`(?:^|[/\\\\\${}])${name.replace(/\./g, '\\.')}(?:$|[/\\\\])`).test(token.text))
        found.push(`names the data folder's ${name}`);
    if (pathCall && FOLDER_NAMES.includes(token.text)) found.push(`builds a path to the data folder's ${token.text}/`);
    // A template literal that starts with the data folder and goes on: `${dataDir}/x`, `${options.dataDir}${sep}x`.
    const start = /^\$\{([^}]*)\}(.)/.exec(token.text);
    if (start && DATA_FOLDER_NAMES.test(start[1] ?? '') && /[/\\$]/.test(start[2] ?? ''))
      found.push(`builds a path under the data folder: \`${token.text}\``);
    code += `'${'_'.repeat(token.text.length)}'`;
  }
  // join(dataDir, …) / resolve(options.dataDir, …): the data folder and more, in the code left without strings.
  for (const m of code.matchAll(/\b(?:join|resolve)\(\s*([^,()]*(?:\([^()]*\)[^,()]*)*),/g))
    if (DATA_FOLDER_NAMES.test(m[1] ?? '')) found.push(`builds a path under the data folder: ${m[0]}`);
  if (/\bdataPaths\b/.test(code)) found.push('uses dataPaths (the data folder by path): ask the store instead');
  return found;
}

/** Source files of the product: what ships and what runs it. */
function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|mts|cts|js|mjs|cjs|svelte)$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter((file) => !file.includes('/node_modules/') && !file.startsWith('server/store/'));
}

describe('the store owns the data folder', () => {
  it('the scanner finds each way of reaching into the data folder, and nothing in ordinary code', () => {
    expect(dataFolderPaths(`const file = join(resolve(dataDir), 'secret.key');`)).toEqual([
      "names the data folder's secret.key",
      'builds a path under the data folder: join(resolve(dataDir),',
    ]);
    expect(dataFolderPaths("return { cert: join(tlsDir, 'localhost-cert.pem') };")).toEqual([
      "names the data folder's localhost-cert.pem",
    ]);
    expect(dataFolderPaths("userDataDir: home ? join(home, 'electron') : x")).toEqual([
      "builds a path to the data folder's electron/",
    ]);
    expect(dataFolderPaths('const f = `${options.dataDir}/ui-link`;')).toEqual([
      "names the data folder's ui-link",
      'builds a path under the data folder: `${options.dataDir}/ui-link`',
    ]);
    expect(dataFolderPaths('const paths = dataPaths(dir);')).toEqual([
      'uses dataPaths (the data folder by path): ask the store instead',
    ]);
    expect(
      dataFolderPaths(
        [
          "import { app } from 'electron'; // db.json in a comment",
          "const page = 'templates'; const url = `/api/templates/${id}`;",
          '/* join(dataDir, x) */ const account = resolve(dataDir);',
          "const bundle = join(root, 'dist', 'cli.js');",
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('no file outside server/store/ builds a path under the data folder', () => {
    const files = ['server', 'main', 'bin', 'scripts'].flatMap(sources);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      dataFolderPaths(readFileSync(join(root, file), 'utf8')).map((what) => `${file}: ${what}`),
    );
    expect(found).toEqual([]);
  });

  it('a started server leaves only what dataPaths names in its data folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dw-folder-'));
    const server = await startServer({ dataDir: dir, port: 0 });
    try {
      await loadSecret(dir, { keychain: 'off' });
      await sessionLinkLines(dir, server.uiLink, false);
      const present = readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .map((entry) => entry.split(sep).join('/'))
        .filter((entry) => !ENTRIES.some((known) => entry === known || entry.startsWith(`${known}/`)));
      expect(present).toEqual([]);
      for (const entry of ['db.json', 'tls/localhost-cert.pem', 'secret.key', 'ui-link', 'server.json'])
        expect(ENTRIES).toContain(entry);
    } finally {
      await server.close();
    }
  });
});
