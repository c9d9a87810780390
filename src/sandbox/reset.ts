// POST /sandbox/reset: a platform's data deleted (but its tokens and configuration), its clock set back (its
// tables: db/platform-data.ts).
import { eq } from 'drizzle-orm';
import type { Db, Statement } from '../db/client';
import { platforms } from '../db/schema';
import { deletePlatformData } from '../db/platform-data';

/**
 * POST /sandbox/reset: deletes all of one platform's data except its API tokens and configuration
 * (PLATFORM_DATA: customers, accounts, KYC links, invitations, agents, ledger, look-ups, quotes, transactions, documents and their stored files, import jobs,
 * webhook events and deliveries, idempotency keys, due transitions, wallet index rows, sandbox e-mails and their per-address counts)
 * and sets its sandbox clock back to real time. One D1 batch, children before parents (foreign keys);
 * then the documents' files. Queue messages still in flight find nothing and do nothing. Snapshots are kept.
 */
export async function resetPlatform(db: Db, bucket: R2Bucket, platformId: string): Promise<void> {
  const statements: Statement[] = [
    ...deletePlatformData(db, platformId),
    db.update(platforms).set({ clockOffsetMs: 0 }).where(eq(platforms.id, platformId)),
  ];
  await db.batch(statements as [Statement, ...Statement[]]);
  await deleteFiles(bucket, documentsPrefix(platformId));
}

/** Where a platform's documents' files are stored in R2 (DOCUMENTS): `documents/<platformId>/…`. */
export const documentsPrefix = (platformId: string) => `documents/${platformId}/`;

/** Every stored file under `prefix`, 1000 keys per call (R2's limit). */
export async function deleteFiles(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix, cursor, limit: 1000 });
    if (listed.objects.length > 0) await bucket.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}
