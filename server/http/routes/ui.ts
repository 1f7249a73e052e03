import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { access } from '../../web/access.ts';

/**
 * The UI's Content Security Policy: everything from this server only. Inline styles are allowed because the
 * document preview (docx-preview) writes the template's styles into `<style>` elements; scripts never inline.
 */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': UI_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The built UI (`dist/ui`, made by `npm run build`), found from this module in the sources or in the bundle. */
export function defaultUiDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === 'docwright') {
          const ui = join(dir, 'dist', 'ui');
          return existsSync(join(ui, 'index.html')) ? ui : undefined;
        }
      } catch {
        // Not our package.json; keep looking upwards.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Docwright</title>
<body style="font-family:system-ui;max-width:40rem;margin:3rem auto;line-height:1.5">
<h1>Docwright’s window is not built</h1>
<p>The API works, but the user interface has not been built in this copy. Run <code>npm run build</code> and reload.</p>
</body></html>`;

/** Serves the UI at `/` with a strict CSP. Pages are public; everything they show comes from the API's session. */
export async function uiRoutes(app: FastifyInstance, options: { uiDir?: string | false }): Promise<void> {
  const dir = options.uiDir === false ? undefined : (options.uiDir ?? defaultUiDir());
  const secure = (reply: FastifyReply) => reply.headers(SECURITY_HEADERS);
  if (!dir) {
    app.get('/', { ...access('public'), schema: { hide: true } }, async (_request, reply) =>
      secure(reply).type('text/html; charset=utf-8').send(NOT_BUILT),
    );
    return;
  }
  // The UI's files are public (this plugin's own scope): @fastify/static adds one route per file, with no config.
  app.addHook('onRoute', (route) => {
    if (route.config?.access === undefined) route.config = { ...route.config, access: 'public' };
  });
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    index: 'index.html',
    wildcard: false,
    serveDotFiles: false,
    setHeaders: (reply) => {
      // Revalidated on every load, so an updated app shows at once (the files are local; it costs nothing).
      secure(reply).header('Cache-Control', 'no-cache');
    },
  });
}
