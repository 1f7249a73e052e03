import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The UI is served by the local server at `/` (and loaded by the Electron window from there), so every asset is
// same-origin and the CSP can be `default-src 'self'`: no inline scripts, no CDN, no web fonts from elsewhere.
export default defineConfig({
  root,
  base: './',
  plugins: [svelte()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
    modulePreload: { polyfill: false },
  },
});
