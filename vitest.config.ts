import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
    // Which Node runs the tests, and a check that no test leaves files in the system temp directory.
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/temp-per-file.ts'],
  },
});
