import type { Env } from '../env';
import type { Logger } from '../http/log';

/** Messages on the JOBS queue, by `type`. Areas add their own variants. */
export type Job = { type: 'noop' };

/** Queue consumer: each message is handled on its own; a failure retries only that message. */
export async function handleJobs(batch: MessageBatch<unknown>, _env: Env, log: Logger): Promise<void> {
  for (const message of batch.messages) {
    const job = message.body as Partial<Job> | null;
    try {
      switch (job?.type) {
        case 'noop':
          break;
        default:
          log.warn('unknown job dropped', { type: String(job?.type) });
      }
      message.ack();
    } catch (error) {
      log.error('job failed', { type: String(job?.type), error: String(error) });
      message.retry();
    }
  }
}

/** Cron backstop: sweeps whatever is overdue. */
export async function sweep(_env: Env, _now: number, _log: Logger): Promise<void> {}
