// The Deps every service gets (database, queue, logger, mode).
import type { Db } from '../db/client';
import type { Env, ServiceMode, Settings } from '../env';
import type { Logger } from './log';

/**
 * What every service gets besides its input: the database, the jobs queue, the logger and the mode. Areas
 * that need more extend it (payments: the rate source; webhooks: the signing key; transitions: the handlers).
 */
export interface Deps {
  db: Db;
  queue: Queue<unknown>;
  log: Logger;
  mode: ServiceMode;
}

/** The Deps of a request (a route's context) or of background work. */
export function depsOf(c: { db: Db; env: Pick<Env, 'JOBS'>; log: Logger; settings: Pick<Settings, 'mode'> }): Deps {
  return { db: c.db, queue: c.env.JOBS, log: c.log, mode: c.settings.mode };
}
