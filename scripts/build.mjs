// Builds the command line into dist/: server/cli-entry.ts bundled (one file starts faster than hundreds of
// modules), the server's modules split into a chunk loaded only by the commands that need them, and the built-in
// template embedded as bytes and already read, so `docwright convert` neither lays it out nor reads it on every start.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { linkedByNpx } from './install-electron.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
// `prepare` when `npx docwright` links this checkout into npx's cache: nothing to build for that (install-electron.mjs).
if (linkedByNpx()) process.exit(0);
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  logLevel: 'warning',
  // Native modules stay outside the bundle.
  external: ['@napi-rs/keyring', 'electron', '@resvg/resvg-js'],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
};

// 1. The built-in template's bytes, and the template read from them, from the same code the sources use.
const temp = mkdtempSync(join(tmpdir(), 'docwright-build-'));
try {
  await build({
    ...common,
    stdin: {
      contents: [
        "export { defaultTemplate } from './server/convert/default-template.ts';",
        "export { readTemplate } from './server/convert/template/read.ts';",
        "export { templateToJson } from './server/convert/template/prepared.ts';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    outfile: join(temp, 'default-template.mjs'),
  });
  const { defaultTemplate, readTemplate, templateToJson } = await import(
    pathToFileURL(join(temp, 'default-template.mjs')).href
  );
  const bytes = defaultTemplate();
  const template = Buffer.from(bytes).toString('base64');
  const templateRead = templateToJson(readTemplate(bytes));

  // 2. The command line.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  await build({
    ...common,
    // The conversion worker is an entry of its own (dist/convert-worker.js), sharing the engine's chunk with the CLI;
    // so is the SVG renderer's child process (dist/render-child.js: server/convert-pool/render-child.ts).
    entryPoints: {
      cli: 'server/cli-entry.ts',
      'convert-worker': 'server/convert-pool/worker.ts',
      'render-child': 'server/convert-pool/render-child.mjs',
    },
    outdir: 'dist',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    define: {
      __DOCWRIGHT_DEFAULT_TEMPLATE__: JSON.stringify(template),
      __DOCWRIGHT_DEFAULT_TEMPLATE_READ__: JSON.stringify(templateRead),
    },
  });
} finally {
  rmSync(temp, { recursive: true, force: true });
}

// 3. The Electron shell (dist/main/).
await (await import('./build-electron.mjs')).buildElectron(root);

// 4. The UI (dist/ui/), served by the local server at `/` and shown by the desktop window.
const { build: viteBuild } = await import('vite');
await viteBuild({ configFile: join(root, 'renderer', 'vite.config.ts'), logLevel: 'warn' });
