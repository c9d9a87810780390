// PLATFORM_DATA, the one list of the tables that hold a platform's data (the sandbox reset deletes them, snapshots
// capture them, a move between homes copies them with the platform's credentials).
import { eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client';
import { idIs } from './id-key';
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
} from './schema';
import type { Statement } from './client';

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
// Transactions and quotes index their platform by its key (id-key.ts).
const byPlatformKey = (kind: string, table: SQLiteTable & { platformId: SQLiteColumn }): PlatformTable => ({
  kind,
  table,
  rowsOf: (platformId) => idIs(table.platformId, platformId),
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
    sql`${table.transactionId} IN (SELECT ${transactions.id} FROM ${transactions} WHERE ${idIs(transactions.platformId, platformId)})`,
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
  byPlatformKey('transactions', transactions),
  byPlatformKey('quotes', quotes),
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
