import type { D1Migration } from 'cloudflare:test';
import type { Env as WorkerEnv } from '../src/env';

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      UPGRADE_DB: D1Database;
      TIGHT_RATE_LIMIT: RateLimit;
      TIGHT_EXPENSIVE_RATE_LIMIT: RateLimit;
    }
  }
}
declare module 'vitest' {
  // Values from test/vitest.config.ts `provide`, read with `inject()`.
  export interface ProvidedContext {
    FC_SEED: string;
    FC_RUNS: string;
    RATE_LIMIT_PERIODS: number[];
  }
}
export {};
