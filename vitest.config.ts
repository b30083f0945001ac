import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll returns as soon as its condition holds; its default bound (1 s) is shorter than a loaded
    // 2-core machine may take to answer a request and redraw, which made such waits fail under load.
    expect: { poll: { timeout: 20_000, interval: 50 } },
    reporters: ['default', './test/helpers/count-reporter.ts'],
  },
});
