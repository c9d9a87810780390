// POST /sandbox/reset: a platform's data deleted (but its tokens and configuration), its clock set back.
import { eq, inArray } from 'drizzle-orm';
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
  platforms,
  quotes,
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
} from '../db/schema';
import type { Statement } from '../db/client';

/**
 * POST /sandbox/reset: deletes all of one platform's data except its API tokens and configuration
 * (customers, accounts, agents, ledger, quotes, transactions, documents and their stored files, import jobs,
 * webhook events and deliveries, idempotency keys, due transitions, wallet index rows, sandbox e-mails and their per-address counts)
 * and sets its sandbox clock back to real time. One D1 batch, children before parents (foreign keys);
 * then the documents' files. Queue messages still in flight find nothing and do nothing.
 */
export async function resetPlatform(db: Db, bucket: R2Bucket, platformId: string): Promise<void> {
  const jobIds = db.select({ id: bulkImportJobs.id }).from(bulkImportJobs).where(eq(bulkImportJobs.platformId, platformId));
  const statements: Statement[] = [
    db.delete(bulkImportChunks).where(inArray(bulkImportChunks.jobId, jobIds)),
    db.delete(bulkImportChunksDone).where(inArray(bulkImportChunksDone.jobId, jobIds)),
    db.delete(bulkImportErrors).where(inArray(bulkImportErrors.jobId, jobIds)),
    db.delete(bulkImportJobs).where(eq(bulkImportJobs.platformId, platformId)),
    db.delete(documents).where(eq(documents.platformId, platformId)),
    db.delete(beneficialOwners).where(eq(beneficialOwners.platformId, platformId)),
    db.delete(verifications).where(eq(verifications.platformId, platformId)),
    db.delete(externalAccounts).where(eq(externalAccounts.platformId, platformId)),
    db.delete(agentActions).where(eq(agentActions.platformId, platformId)),
    db.delete(agentTokens).where(eq(agentTokens.platformId, platformId)),
    db.delete(agentDeviceCodes).where(eq(agentDeviceCodes.platformId, platformId)),
    db.delete(agents).where(eq(agents.platformId, platformId)),
    db.delete(internalAccounts).where(eq(internalAccounts.platformId, platformId)),
    db.delete(customers).where(eq(customers.platformId, platformId)),
    db.delete(ledgerEntries).where(eq(ledgerEntries.platformId, platformId)),
    db.delete(transactionHistory).where(eq(transactionHistory.platformId, platformId)),
    db.delete(transactions).where(eq(transactions.platformId, platformId)),
    db.delete(quotes).where(eq(quotes.platformId, platformId)),
    db.delete(dueTransitions).where(eq(dueTransitions.platformId, platformId)),
    db.delete(webhookDeliveries).where(eq(webhookDeliveries.platformId, platformId)),
    db.delete(webhookEvents).where(eq(webhookEvents.platformId, platformId)),
    db.delete(idempotencyKeys).where(eq(idempotencyKeys.platformId, platformId)),
    db.delete(walletAuthIndex).where(eq(walletAuthIndex.platformId, platformId)),
    db.delete(sandboxEmails).where(eq(sandboxEmails.platformId, platformId)),
    db.delete(otpEmailSends).where(eq(otpEmailSends.platformId, platformId)),
    db.update(platforms).set({ clockOffsetMs: 0 }).where(eq(platforms.id, platformId)),
  ];
  await db.batch(statements as [Statement, ...Statement[]]);
  await deleteDocumentFiles(bucket, platformId);
}

/** Every stored file under the platform's documents prefix, 1000 keys per call (R2's limit). */
async function deleteDocumentFiles(bucket: R2Bucket, platformId: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix: `documents/${platformId}/`, cursor, limit: 1000 });
    if (listed.objects.length > 0) await bucket.delete(listed.objects.map((o) => o.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}
