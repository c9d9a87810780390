import { applyD1Migrations, env } from 'cloudflare:test';

// Idempotent: applies only migrations not yet recorded.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await applyD1Migrations(env.DB_2!, env.TEST_MIGRATIONS);
