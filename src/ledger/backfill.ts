// The ledger of releases before migration 0032 (two entries per movement) turned into movements, online: the
// cron sweep converts it in chunks, so an upgrade never copies a large ledger in one statement.
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { ledgerEntries as e, ledgerMovements as m } from '../db/schema';

/** Entries read per chunk: one short batch (a thousand rows and their index entries) holds the writer briefly. */
export const LEGACY_CHUNK = 1000;
/** Chunks per sweep tick: about 20,000 entries a minute, so a ledger of ten million rows converts in hours. */
const CHUNKS_PER_TICK = 20;

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

/**
 * The sweep's step: up to CHUNKS_PER_TICK chunks, stopping at the first that converts nothing. Once the old
 * entries are gone (an older snapshot's restore brings some back), a tick costs one probe of an empty table.
 */
export async function convertLegacyLedger(db: Db): Promise<number> {
  if (!(await db.get(sql`SELECT 1 FROM ${e} LIMIT 1`))) return 0;
  let converted = 0;
  for (let i = 0; i < CHUNKS_PER_TICK; i++) {
    const n = await convertLegacyChunk(db);
    if (n === 0) break;
    converted += n;
  }
  return converted;
}
