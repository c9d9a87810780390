import { fileURLToPath } from 'node:url';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      main: here('../src/index.ts'),
      wrangler: { configPath: here('../wrangler.toml') },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations(here('../migrations')),
          OPERATOR_TOKEN: 'test-operator-token',
          LOG_LEVEL: 'error',
        },
      },
    })),
  ],
  test: {
    root: here('..'),
    include: ['test/**/*.test.ts'],
    setupFiles: [here('./setup.ts')],
    testTimeout: 30_000,
    // The JSON report lets .ci/run print the plain "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: here('../node_modules/.cache/vitest-report.json') },
  },
});
