// Converting the rows an earlier release left in a table it no longer writes, online: the cron sweep runs a
// few short chunks per tick, so an upgrade never copies a large table in one statement.
import { sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client';

/** Chunks per sweep tick: each a short batch, so the writer is held briefly and often released. */
const CHUNKS_PER_TICK = 20;

/**
 * Runs `chunk` (which converts some of `legacy`'s rows and returns how many it removed) up to CHUNKS_PER_TICK
 * times, stopping at the first that removes none. Once `legacy` is empty, a tick costs one probe of it.
 */
export async function convertInChunks(db: Db, legacy: SQLiteTable, chunk: (db: Db) => Promise<number>): Promise<number> {
  if (!(await db.get(sql`SELECT 1 FROM ${legacy} LIMIT 1`))) return 0;
  let converted = 0;
  for (let i = 0; i < CHUNKS_PER_TICK; i++) {
    const n = await chunk(db);
    if (n === 0) break;
    converted += n;
  }
  return converted;
}
