// POST /sandbox/reset: a platform's data deleted (but its tokens and configuration), its clock set back; and
// PLATFORM_DATA, the one list of the tables that hold a platform's sandbox data (reset deletes them, snapshots capture them).
import { eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import {
  beneficialOwners,
  bulkImportChunks,
  bulkImportChunksDone,
  bulkImportErrors,
  bulkImportJobs,
  customers,
  documents,
  dueTransitions,
  externalAccounts,
  idempotencyKeys,
  internalAccounts,
  ledgerEntries,
  ledgerMovements,
  platforms,
  quotes,
  receiverLookups,
  sandboxEmails,
  otpEmailSends,
  transactionHistory,
  transactions,
  verifications,
  walletAuthIndex,
  agentActions,
  agentDeviceCodes,
  agents,
  agentTokens,
  webhookDeliveries,
  webhookEvents,
  invitations,
  kycLinks,
} from '../db/schema';
import type { Statement } from '../db/client';

/** One table of a platform's data: its API-facing name (a snapshot's `counts` key) and its rows of the platform. */
export interface PlatformTable {
  kind: string;
  table: SQLiteTable;
  rowsOf: (platformId: string) => SQL;
}

const byPlatform = (kind: string, table: SQLiteTable & { platformId: SQLiteColumn }): PlatformTable => ({
  kind,
  table,
  rowsOf: (platformId) => eq(table.platformId, platformId),
});
// Import chunks carry no platform id: they are the platform's through their job.
const byJob = (kind: string, table: SQLiteTable & { jobId: SQLiteColumn }): PlatformTable => ({
  kind,
  table,
  rowsOf: (platformId) =>
    sql`${table.jobId} IN (SELECT ${bulkImportJobs.id} FROM ${bulkImportJobs} WHERE ${bulkImportJobs.platformId} = ${platformId})`,
});

// An earlier release's history rows carry their platform but no index of it: they are the platform's through their transaction.
const byTransaction = (kind: string, table: SQLiteTable & { transactionId: SQLiteColumn }): PlatformTable => ({
  kind,
  table,
  rowsOf: (platformId) =>
    sql`${table.transactionId} IN (SELECT ${transactions.id} FROM ${transactions} WHERE ${transactions.platformId} = ${platformId})`,
});

// An event has a delivery from its first batch until both go together (webhooks/retention.ts): the platform's
// events are those its deliveries name, found through their index; so events come before deliveries below.
const byDelivery = (kind: string, table: SQLiteTable & { id: SQLiteColumn }): PlatformTable => ({
  kind,
  table,
  rowsOf: (platformId) =>
    sql`${table.id} IN (SELECT ${webhookDeliveries.eventId} FROM ${webhookDeliveries} WHERE ${webhookDeliveries.platformId} = ${platformId})`,
});

/**
 * Every table of a platform's data, children before parents (foreign keys: delete in this order, insert in the
 * reverse). Not here: the platform row itself (its clock is handled apart), API tokens, fault rules, and what
 * triggers derive from these tables (list counts, the customer search index and currencies, quotes' status).
 */
export const PLATFORM_DATA: readonly PlatformTable[] = [
  byJob('bulkImportChunks', bulkImportChunks),
  byJob('bulkImportChunksDone', bulkImportChunksDone),
  byJob('bulkImportErrors', bulkImportErrors),
  byPlatform('bulkImportJobs', bulkImportJobs),
  byPlatform('documents', documents),
  byPlatform('beneficialOwners', beneficialOwners),
  byPlatform('kycVerifications', verifications),
  byPlatform('kycLinks', kycLinks),
  byPlatform('invitations', invitations),
  byPlatform('externalAccounts', externalAccounts),
  byPlatform('agentActions', agentActions),
  byPlatform('agentTokens', agentTokens),
  byPlatform('agentDeviceCodes', agentDeviceCodes),
  byPlatform('agents', agents),
  byPlatform('internalAccounts', internalAccounts),
  byPlatform('customers', customers),
  byPlatform('ledgerMovements', ledgerMovements),
  // Entries of an earlier release not yet converted (ledger/backfill.ts); an older snapshot's are restored here.
  byPlatform('ledgerEntries', ledgerEntries),
  byTransaction('transactionHistory', transactionHistory),
  byPlatform('transactions', transactions),
  byPlatform('quotes', quotes),
  byPlatform('receiverLookups', receiverLookups),
  byPlatform('dueTransitions', dueTransitions),
  byDelivery('webhookEvents', webhookEvents),
  byPlatform('webhookDeliveries', webhookDeliveries),
  byPlatform('idempotencyRecords', idempotencyKeys),
  byPlatform('walletAuthIndex', walletAuthIndex),
  byPlatform('emails', sandboxEmails),
  byPlatform('otpEmailSends', otpEmailSends),
];

/** Deletes of all of a platform's data, in PLATFORM_DATA's order (children first). */
export const deletePlatformData = (db: Db, platformId: string): Statement[] =>
  PLATFORM_DATA.map(({ table, rowsOf }) => db.delete(table).where(rowsOf(platformId)));

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
