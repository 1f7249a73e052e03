// ESLint for the whole tree (run from the project root: npm run lint): typescript-eslint's strict type-checked rules
// for the TypeScript, eslint-plugin-svelte for the UI. Its packages live in tools/lint/ (see its package.json).
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const root = fileURLToPath(new URL('../..', import.meta.url));

// eslint-plugin-svelte loads `typescript` from the working directory, where it would find the project's TypeScript 7
// (no JavaScript API); every `typescript` here is this folder's TypeScript 6.
const typescript = import.meta.resolve('typescript');
registerHooks({
  resolve: (specifier, context, next) =>
    specifier === 'typescript' ? { url: typescript, shortCircuit: true } : next(specifier, context),
});

export default tseslint.config(
  { ignores: ['dist/', 'release/', 'test-results/', '**/node_modules/', '**/*.d.mts', 'tools/lint/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...svelte.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.browser },
      parserOptions: {
        projectService: { allowDefaultProject: ['bin/*.js', 'scripts/*.mjs', 'bench/*.mjs'] },
        extraFileExtensions: ['.svelte'],
        tsconfigRootDir: root,
      },
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    // Plain JavaScript (bin/, scripts/, bench/) has no types to check against.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
