// The ledger of releases before migration 0032 (two entries per movement) turned into movements, online: the
// cron sweep converts it in chunks (db/backfill.ts), so an upgrade never copies a large ledger in one statement.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { convertInChunks } from '../db/backfill';
import { ledgerEntries as e, ledgerMovements as m } from '../db/schema';

/** Entries read per chunk: one short batch (a thousand rows and their index entries); 20,000 a sweep tick. */
export const LEGACY_CHUNK = 1000;

// The oldest entries (rowid order, the table's own order: no index needed).
const chunk = sql`SELECT rowid FROM ${e} ORDER BY rowid LIMIT ${sql.raw(String(LEGACY_CHUNK))}`;

/**
 * Converts one chunk: each movement whose two entries (one debit, one credit of the same amount) are both in
 * it becomes its row, and those entries go, in one batch. A movement split by the chunk's end stays for the
 * next chunk, which begins with it. Returns the number of entries converted (0: none left, or none complete).
 */
export async function convertLegacyChunk(db: Db): Promise<number> {
  const [, deleted] = await db.batch([
    db
      .insert(m)
      .select(
        sql`SELECT ${e.platformId}, ${e.reference}, ${e.kind},
          max(CASE WHEN ${e.amount} < 0 THEN ${e.accountId} END), max(CASE WHEN ${e.amount} > 0 THEN ${e.accountId} END),
          max(${e.amount}), ${e.currency}, min(${e.createdAt})
        FROM ${e} WHERE rowid IN (${chunk})
        GROUP BY ${e.platformId}, ${e.reference}, ${e.kind}, ${e.currency}
        HAVING count(*) = 2 AND sum(${e.amount}) = 0 AND min(${e.amount}) < 0`,
      )
      // A movement already there was posted once (a new posting of a movement still here is refused).
      .onConflictDoNothing(),
    db
      .delete(e)
      .where(
        sql`rowid IN (${chunk}) AND EXISTS (SELECT 1 FROM ${m} WHERE ${m.platformId} = ${e.platformId} AND ${m.reference} = ${e.reference} AND ${m.kind} = ${e.kind})`,
      ),
  ]);
  return deleted.meta.changes;
}

/** The sweep's step: the old entries converted a few chunks at a time, until none is left. */
export const convertLegacyLedger = (db: Db) => convertInChunks(db, e, convertLegacyChunk);
