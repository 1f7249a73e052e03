// Prettier for the whole tree (run from the project root: npm run format:check). The Svelte plugin is given by its
// path: Prettier resolves plugin names from the working directory, and the plugin is installed in tools/lint/.
import { fileURLToPath } from 'node:url';

export default {
  printWidth: 120,
  singleQuote: true,
  plugins: [fileURLToPath(import.meta.resolve('prettier-plugin-svelte'))],
  overrides: [{ files: '*.svelte', options: { parser: 'svelte' } }],
};
