import type { Env } from '../env';
import type { Logger } from '../http/log';
import { database } from '../db/client';
import { processBulkChunk, resumeStalledImports, type BulkImportMessage } from '../customers/bulk-service';

/** Messages on the JOBS queue, by `type`. Areas add their own variants. */
export type Job = { type: 'noop' } | BulkImportMessage;

/** Queue consumer: each message is handled on its own; a failure retries only that message. */
export async function handleJobs(batch: MessageBatch<unknown>, env: Env, log: Logger): Promise<void> {
  const db = database(env.DB);
  for (const message of batch.messages) {
    const job = message.body as Job | null;
    try {
      switch (job?.type) {
        case 'noop':
          break;
        case 'bulk.import':
          await processBulkChunk(db, job, Date.now());
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
}

/** Cron backstop: sweeps whatever is overdue. */
export async function sweep(env: Env, now: number, _log: Logger): Promise<void> {
  await resumeStalledImports(database(env.DB), env.JOBS, now);
}
