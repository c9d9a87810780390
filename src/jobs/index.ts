// The queue consumer and the cron sweep.
import { settings, type Env } from '../env';
import type { Logger } from '../http/log';
import { purgeExpiredIdempotencyKeys } from '../http/idempotency';
import { deliverEvents } from '../webhooks/delivery';
import { sweepDueWebhooks } from '../webhooks/sweep';
import type { WebhookDeliverJob } from '../webhooks/outbox';
import { purgeSettledDeliveries } from '../webhooks/retention';
import { jobDeps, type JobDeps } from './deps';
import { database, type Db } from '../db/client';
import { homeD1, homesOf } from '../db/homes';
import { homeEnv, homeOfMessage } from '../http/home';
import { resumeStalledImports, type BulkImportMessage } from '../customers/bulk-service';
import { processBulkChunk } from '../customers/bulk-chunks';
import { purgeExpiredLookups } from '../payments/lookups-service';
import { convertLegacyLedger } from '../ledger/backfill';
import { convertLegacyHistory } from '../payments/history';
import { applyDueTransitions, purgeAppliedTransitions, sweepDueTransitions, type TransitionDueJob } from '../transitions/schedule';

/** Messages on the JOBS queue, by `type`. Areas add their own variants. */
export type Job = WebhookDeliverJob | TransitionDueJob | BulkImportMessage;

/**
 * Queue consumer: each message is handled on its own and a failure retries only that message, except
 * webhook deliveries, which the batch attempts together (their claims and results each take one D1 round
 * trip for the whole batch); if that fails, those messages are retried. Handlers are idempotent
 * (conditional claims), so a redelivered message changes nothing twice.
 */
export async function handleJobs(batch: MessageBatch<unknown>, env: Env, log: Logger): Promise<void> {
  // Each message is its home's work (http/home.ts marks them): one group a home, each in its own database.
  const byHome = new Map<string, Message<unknown>[]>();
  for (const message of batch.messages) {
    const home = homeOfMessage(message.body);
    byHome.set(home, [...(byHome.get(home) ?? []), message]);
  }
  for (const [home, messages] of byHome) await handleHomeJobs(messages, homeEnv(env, home), database(homeD1(env, home)), log);
}

async function handleHomeJobs(messages: readonly Message<unknown>[], env: Env, db: Db, log: Logger): Promise<void> {
  const deps = jobDeps(env, settings(env), log, db);
  const deliveries: { message: Message<unknown>; eventId: string }[] = [];
  for (const message of messages) {
    const job = message.body as Job | null;
    if (job?.type === 'webhook.deliver' && typeof job.eventId === 'string') {
      deliveries.push({ message, eventId: job.eventId });
      continue;
    }
    try {
      switch (job?.type) {
        case 'webhook.deliver':
          break;
        case 'transition.due':
          if (typeof job.id === 'string') await applyDueTransitions(deps, Date.now(), { id: job.id });
          break;
        case 'bulk.import':
          await processBulkChunk(deps.db, deps.queue, job, Date.now());
          break;
        default:
          log.warn('unknown job dropped', { type: String((job as { type?: unknown } | null)?.type) });
      }
      message.ack();
    } catch (error) {
      log.error('job failed', { type: String(job?.type), error: String(error) });
      message.retry();
    }
  }
  if (deliveries.length === 0) return;
  try {
    await deliverEvents(deps, [...new Set(deliveries.map((d) => d.eventId))], Date.now());
    for (const d of deliveries) d.message.ack();
  } catch (error) {
    log.error('job failed', { type: 'webhook.deliver', count: deliveries.length, error: String(error) });
    for (const d of deliveries) d.message.retry();
  }
}

/** A sweep step from above this floor: its name (for the log) and its work. */
export type SweepStep = [string, (deps: JobDeps, env: Env, now: number) => Promise<unknown>];

/**
 * Cron backstop (every minute): whatever is overdue, on each platform's own clock, and retention. Each step
 * reads only what is due (wall-clock `sweepAt` indexes); a backlog beyond what one tick handles itself is
 * fanned out through the queue (docs/engineering/performance.md, "Background work"). `more`: steps of floors above this one (the
 * sandbox's), run after these.
 */
export async function sweep(env: Env, now: number, log: Logger, more: SweepStep[] = []): Promise<void> {
  // Every home is swept, side by side: each step's bounds are per database, and one home's backlog does not
  // hold back another's.
  await Promise.all(homesOf(env).map((home) => sweepHome(homeEnv(env, home), database(homeD1(env, home)), now, log, more)));
}

async function sweepHome(env: Env, db: Db, now: number, log: Logger, more: SweepStep[]): Promise<void> {
  const s = settings(env);
  const deps = jobDeps(env, s, log, db);
  const steps: [string, () => Promise<unknown>][] = [
    ['transitions', () => sweepDueTransitions(deps, now)],
    ['webhooks', () => sweepDueWebhooks(deps, now)],
    ['webhook retention', () => purgeSettledDeliveries(deps.db, now, s.webhookRetentionMs)],
    ['applied transitions', () => purgeAppliedTransitions(deps.db, now)],
    ['idempotency keys', () => purgeExpiredIdempotencyKeys(deps.db, now)],
    ['receiver look-ups', () => purgeExpiredLookups(deps.db, now)],
    ['bulk imports', () => resumeStalledImports(deps.db, env.JOBS, now)],
    ['ledger of an earlier release', () => convertLegacyLedger(deps.db)],
    ['status history of an earlier release', () => convertLegacyHistory(deps.db)],
    ...more.map(([name, step]): [string, () => Promise<unknown>] => [name, () => step(deps, env, now)]),
  ];
  // Each step on its own: one failing does not starve the others.
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (error) {
      log.error('sweep step failed', { step: name, error: String(error) });
    }
  }
}
