import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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

/**
 * The lines a passing run expects from workerd itself, left out of the output. The pool runs workerd with --verbose
 * and prints its INFO log, where a connection cut on purpose is an exception with a stack: a body the DISCONNECT
 * fault cuts (src/sandbox/faults.ts; its tests assert that reading the body fails with the fault's reason), and a
 * request body the service stops reading at its size limit (test/platform/input.test.ts asserts the 413 and the
 * refused writes). Any other line of workerd's still prints.
 */
const EXPECTED_WORKERD_LINES = [
  /^uncaught exception; exception = \S+ disconnected: jsg\.Error: Sandbox fault: connection dropped\n/,
  /^exception = \S+ disconnected: read end of pipe was aborted\n/,
];
const print = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  if (typeof chunk !== 'string' || !EXPECTED_WORKERD_LINES.some((line) => line.test(chunk)))
    return (print as (...a: unknown[]) => boolean)(chunk, ...rest);
  (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
  return true;
}) as typeof process.stdout.write;

// Wrangler's config reader would announce, once per test file, the .dev.vars that `npm start` leaves behind; the
// bindings below replace each of its values, so its note only reads as noise. Its warnings and errors still print.
process.env.WRANGLER_LOG ??= 'warn';

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
    // Each test file starts its own runtime and loads the Worker's modules into it. Dependencies pre-bundled, one
    // module each instead of hundreds, make that load about half as long; the wallet test client's libraries stay
    // out (bundled, they take their Node branch). Files run two at a time even on two cores: each waits on its
    // own workerd process most of the time.
    deps: {
      optimizer: {
        ssr: {
          enabled: true,
          include: [
            'zod',
            'drizzle-orm',
            'drizzle-orm/sqlite-core',
            'drizzle-orm/d1',
            'drizzle-orm/batch',
            '@noble/hashes/utils.js',
            '@noble/hashes/sha2.js',
            '@noble/hashes/sha3.js',
            '@noble/hashes/hmac.js',
            '@noble/curves/nist.js',
            '@scure/base',
            'jose',
            'itty-router',
            '@simplewebauthn/server',
            '@simplewebauthn/server/helpers',
          ],
        },
      },
    },
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    // The JSON report lets .ci/run print the plain "N passed, N failed" line.
    reporters: ['default', 'json'],
    outputFile: { json: here('../node_modules/.cache/vitest-report.json') },
  },
});
