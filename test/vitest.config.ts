import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The slowest files (each a minute or more of a full run): `npm run test:fast` (the `fast` project) leaves them
 * out; `npm test` runs both projects.
 */
const SLOW = [
  'test/security/permission-walk.test.ts',
  'test/hostile/fuzz.test.ts',
  'test/accounts/corridors.test.ts',
  'test/perf/**/*.test.ts',
  'test/jobs/sweep-cost.test.ts',
];

export default defineConfig({
  // Vite's warnings only: that the MCP SDK's and the wallet test client's published source maps name files they do
  // not ship, nothing to act on and read as failures in a passing run. Its errors still print.
  logLevel: 'error',
  plugins: [
    cloudflareTest(async () => ({
      main: here('../src/index.ts'),
      wrangler: { configPath: here('../wrangler.toml') },
      miniflare: {
        // An empty database on which test/platform/migrations.test.ts plays an upgrade from an earlier release.
        d1Databases: ['UPGRADE_DB'],
        // The suite sends thousands of requests per platform a minute: its budgets are out of reach. The tight
        // pair is what test/platform/rate-limit.test.ts swaps in to see the real limiter refuse.
        ratelimits: {
          RATE_LIMIT: { simple: { limit: 1_000_000_000, period: 10 } },
          EXPENSIVE_RATE_LIMIT: { simple: { limit: 1_000_000_000, period: 10 } },
          TIGHT_RATE_LIMIT: { simple: { limit: 8, period: 60 } },
          TIGHT_EXPENSIVE_RATE_LIMIT: { simple: { limit: 2, period: 60 } },
        },
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations(here('../migrations')),
          OPERATOR_TOKEN: 'test-operator-token',
          // 32 bytes, base64: "test-only wallet encryption key!"
          WALLET_ENCRYPTION_KEY: 'dGVzdC1vbmx5IHdhbGxldCBlbmNyeXB0aW9uIGtleSE=',
          // A local test issuer whose JWKS tests serve through a fetch stub, next to a real provider.
          OIDC_ISSUERS: JSON.stringify({
            'https://issuer.test': 'https://issuer.test/.well-known/jwks.json',
            'https://accounts.google.com': 'https://www.googleapis.com/oauth2/v3/certs',
          }),
          // A fixed P-256 test key (PKCS#8 DER, base64), generated once for the tests only.
          WEBHOOK_SIGNING_KEY:
            'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg6Ypq4vwzEyYUY03tot4k7DPcNpGz5CCbd4AxliWEvQ2hRANCAAR801gs05I5zfshxxUbUcGzcUK7APHqLRQ/Nur6knxJH3zNso08NgKzHRUnwTe7gJRSBudVrCty6weQUIGzUG9M',
          // Production-mode tests send OTP e-mails to a provider that a fetch stub plays.
          EMAIL_API_KEY: 'test-email-provider-key',
          LOG_LEVEL: 'error',
        },
      },
    })),
  ],
  test: {
    root: here('..'),
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
    setupFiles: [here('./setup.ts')],
    // The hostile-input suite's seed and size: `FC_SEED=123 FC_RUNS=5000 npm test` replays or widens a run.
    provide: {
      FC_SEED: process.env.FC_SEED ?? '',
      FC_RUNS: process.env.FC_RUNS ?? '',
      // The deployed budgets' periods, which the 429's Retry-After (RATE_LIMIT_PERIOD_SECONDS) must state.
      RATE_LIMIT_PERIODS: [...readFileSync(here('../wrangler.toml'), 'utf8').matchAll(/period\s*=\s*(\d+)/g)].map((m) => Number(m[1])),
    },
    testTimeout: 30_000,
    // The JSON report lets .ci/run print the plain "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: here('../node_modules/.cache/vitest-report.json') },
  },
});
