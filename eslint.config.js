// ESLint: typescript-eslint's strict type-checked rules for the TypeScript, eslint-plugin-svelte for the UI.
import { registerHooks } from 'node:module';

// TypeScript 7 (our `tsc`) is a native binary without the JavaScript compiler API that typescript-eslint reads types
// through; TypeScript 6's package (the same language, the last one with that API) stands in for it here only.
registerHooks({
  resolve(specifier, context, next) {
    const ts = specifier === 'typescript' || specifier.startsWith('typescript/');
    return next(ts ? specifier.replace(/^typescript/, '@typescript/typescript6') : specifier, context);
  },
});

const { default: js } = await import('@eslint/js');
const { default: tseslint } = await import('typescript-eslint');
const { default: svelte } = await import('eslint-plugin-svelte');
const { default: globals } = await import('globals');

export default tseslint.config(
  { ignores: ['dist/', 'release/', 'test-results/', 'node_modules/', '**/*.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...svelte.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.browser },
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'bin/*.js', 'scripts/*.mjs'] },
        extraFileExtensions: ['.svelte'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    // Plain JavaScript (bin/, scripts/) has no types to check against.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
