// Builds the Electron shell into dist/main/: the main process (main/main.ts with the embedded server, one ES
// module), the server's conversion worker, the preload script (CommonJS: sandboxed preloads cannot be ES modules)
// and the icons.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bundles main/ into `<root>/dist/main/` (or `out`, for tests). */
export async function buildElectron(root, out = join(root, 'dist', 'main')) {
  mkdirSync(out, { recursive: true });
  const common = { absWorkingDir: root, bundle: true, target: 'node20', logLevel: 'warning', sourcemap: 'linked' };
  await build({
    ...common,
    entryPoints: ['main/main.ts'],
    outfile: join(out, 'main.js'),
    platform: 'node',
    format: 'esm',
    // Electron is the runtime; the keychain's native module is loaded from node_modules (unpacked from the asar).
    external: ['electron', '@napi-rs/keyring', '@resvg/resvg-js'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  // The server's conversion worker, next to main.js where the pool looks for it (unpacked from the asar, see
  // electron-builder.yml): one self-contained module.
  await build({
    ...common,
    entryPoints: ['server/convert-pool/worker.ts'],
    outfile: join(out, 'convert-worker.js'),
    platform: 'node',
    format: 'esm',
    // The SVG renderer's native module is loaded from node_modules (unpacked from the asar).
    external: ['electron', '@resvg/resvg-js'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  // The SVG renderer's child process (server/convert-pool/render-child.ts), next to the worker (unpacked too).
  await build({
    ...common,
    entryPoints: ['server/convert-pool/render-child.mjs'],
    outfile: join(out, 'render-child.js'),
    platform: 'node',
    format: 'esm',
    external: ['@resvg/resvg-js'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  await build({
    ...common,
    entryPoints: ['main/preload.ts'],
    outfile: join(out, 'preload.cjs'),
    platform: 'browser',
    format: 'cjs',
    external: ['electron'],
  });
  for (const icon of ['icon.png', 'tray.png', 'tray@2x.png'])
    copyFileSync(join(root, 'main', 'assets', icon), join(out, icon));
  // package.json's "main": npm packs that file whatever `files` says, so it is this one line, not the 6 MB bundle the
  // command line's tarball leaves out.
  writeFileSync(
    join(out, 'index.js'),
    "// The desktop app's entry (package.json \"main\"): the bundle beside it.\nimport './main.js';\n",
  );
}
