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
  {
    ignores: [
      'dist/',
      'release/',
      'test-results/',
      '**/node_modules/',
      '**/*.d.mts',
      'tools/lint/',
      '.dependency-cruiser.cjs',
    ],
  },
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
    rules: {
      // Counts and sizes go into messages as they are; `undefined`, `null` and booleans must still be said in words
      // (all spelled out: options given here replace the strict config's, and the rule's own defaults allow them all).
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allowNumber: true,
          allowAny: false,
          allowBoolean: false,
          allowNever: false,
          allowNullish: false,
          allowRegExp: false,
        },
      ],
      // `onclick={() => save()}` and `if (done) return print(x)` (in a function that returns nothing) are how we write
      // callbacks and early exits; a void value used as a value is still flagged.
      '@typescript-eslint/no-confusing-void-expression': [
        'error',
        { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true },
      ],
      // Fastify plugins and handlers, MCP tools and storage adapters are async by contract: dropping `async` would make
      // their throws synchronous instead of rejections.
      '@typescript-eslint/require-await': 'off',
      // We match control characters on purpose: file names, CSS values and zip entry names are cleaned of them.
      'no-control-regex': 'off',
      // Stored data is JSON (lowdb, request bodies): records keyed by id or month are plain objects, and delete is how a
      // key leaves one.
      '@typescript-eslint/no-dynamic-delete': 'off',
      // `_state` keeps a handler's shared signature, and `{ hash: _hash, ...rest }` is how we leave a field out.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests read JSON bodies (`res.json()`, JSON.parse) and vitest's asymmetric matchers, which their libraries type as
    // `any`, and assert on them at once: a wrong member fails the test. Teardown (`await server?.close()`) guards against
    // a beforeAll that failed before assigning, which TypeScript cannot know.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
    rules: {
      // `void x;` is how a $effect reads a value it depends on but does not otherwise use.
      '@typescript-eslint/no-meaningless-void-operator': 'off',
    },
  },
  {
    // Plain JavaScript (bin/, scripts/, bench/) has no types to check against.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
