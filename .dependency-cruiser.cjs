/**
 * The shape of server/ (issue 31), checked by test/architecture.test.ts in `npm test`:
 * no import circle; mcp/ and http/ are two surfaces on services and import neither each other; the engine's steps
 * (parse → compile → package, each reading the template) import only downwards; the engine imports nothing of the
 * server around it.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: modules that can only be understood (and loaded) together.',
      from: { path: '^server/' },
      to: { circular: true },
    },
    {
      name: 'http-not-mcp',
      severity: 'error',
      comment: 'http/ is one surface on services; MCP is another.',
      from: { path: '^server/http/' },
      to: { path: '^server/mcp/' },
    },
    {
      name: 'mcp-not-http',
      severity: 'error',
      comment: 'mcp/ is one surface on services; HTTP is another.',
      from: { path: '^server/mcp/' },
      to: { path: '^server/http/' },
    },
    {
      name: 'engine-stands-alone',
      severity: 'error',
      comment: 'The engine (server/convert/) is pure: it imports nothing of the server around it.',
      from: { path: '^server/convert/' },
      to: { path: '^server/(?!convert/)' },
    },
    {
      name: 'parse-below-compile',
      severity: 'error',
      comment: 'parse/ knows nothing of the later steps.',
      from: { path: '^server/convert/parse/' },
      to: { path: '^server/convert/(compile|package)/' },
    },
    {
      name: 'compile-below-package',
      severity: 'error',
      comment: 'compile/ hands plain results to package/ and never imports it.',
      from: { path: '^server/convert/compile/' },
      to: { path: '^server/convert/package/' },
    },
    {
      name: 'template-at-the-bottom',
      severity: 'error',
      comment: 'template/ reads a Word template; it imports none of the steps that use it.',
      from: { path: '^server/convert/template/' },
      to: { path: '^server/convert/(parse|compile|package)/' },
    },
    {
      name: 'handlers-stand-alone',
      severity: 'error',
      comment: 'One handler per mdast node: a handler imports no other handler (shared code lives outside handlers/).',
      from: { path: '^server/convert/compile/handlers/([^/]+)\\.ts$' },
      to: { path: '^server/convert/compile/handlers/', pathNot: '^server/convert/compile/handlers/$1\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mts', '.js', '.mjs'] },
  },
};
