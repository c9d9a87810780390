import type { Env, Settings } from '../env';
import { database, type Db } from '../db/client';
import type { Logger } from '../http/log';
import type { WebhookDeps } from '../webhooks/delivery';

/** What background work needs (queue consumer, cron sweep, and routes that trigger it). */
export type JobDeps = WebhookDeps;

export function jobDeps(env: Env, s: Settings, log: Logger, db: Db = database(env.DB)): JobDeps {
  return { db, queue: env.JOBS, signingKey: s.webhookSigningKey, mode: s.mode, log };
}
