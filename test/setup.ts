import { applyD1Migrations, env } from 'cloudflare:test';

// Idempotent: applies only migrations not yet recorded.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
